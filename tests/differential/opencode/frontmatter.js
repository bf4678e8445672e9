// How OpenCode 1.18.33 reads an agent file's frontmatter: gray-matter
// 4.0.3 (js-yaml 3, safeLoad), and on an error the same again with the
// frontmatter sanitized (`ConfigMarkdown.parse`; the sanitizer restated
// from the CLI's bundle). Reads a JSON array of file texts on stdin and
// prints one JSON line per text: {"data": …} | {"empty": true} (loaded
// with no data: gray-matter's cached failed read) | {"error": "…"}.
// The texts must differ from each other: gray-matter caches by text.
const matter = require('gray-matter');

function sanitize(q) {
  const J = q.match(/^---\r?\n([\s\S]*?)\r?\n---/);
  if (!J) return q;
  const Z = J[1];
  const V = Z.split(/\r?\n/).flatMap(($) => {
    if ($.trim().startsWith('#') || $.trim() === '' || /^\s+/.test($)) return [$];
    const Y = $.match(/^([a-zA-Z_][a-zA-Z0-9_]*)\s*:\s*(.*)$/);
    if (!Y) return [$];
    const z = Y[2].trim();
    if (z === '' || z === '>' || z === '|' || z.startsWith('"') || z.startsWith("'")) return [$];
    if (!z.includes(':')) return [$];
    return [`${Y[1]}: |-`, `  ${z}`];
  });
  return q.replace(Z, () => V.join('\n'));
}

function parse(q) {
  try {
    return matter(q);
  } catch {
    return matter(sanitize(q));
  }
}

let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  for (const text of JSON.parse(input)) {
    let out;
    try {
      const md = parse(text);
      const data = md.data;
      if (md.content === text && md.matter !== undefined && Object.keys(data).length === 0 && text.startsWith('---')) {
        out = { empty: true };
      } else {
        // Dates and non-finite numbers, which JSON cannot say, as markers.
        const plain = (v) =>
          v instanceof Date ? { date: true }
          : typeof v === 'number' && !Number.isFinite(v) ? { number: String(v) }
          : Array.isArray(v) ? v.map(plain)
          : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
          : v;
        out = { data: plain(data === undefined ? null : data) };
      }
    } catch (e) {
      out = { error: String(e.message).split('\n')[0] };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
});
