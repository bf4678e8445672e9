"""A whole editing session as an editor drives it."""

import asyncio
import pathlib

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

URI = "file:///home/user/project/.pi/extensions/pi-permission-system/config.json"

BROKEN = """{
  "permission": {
    "*": "ask",
    "bash": { "git *": "allow", },
    "read": "Allow"
  }
}
"""


async def open_and_wait(client: LanguageClient, text: str, uri: str = URI, version: int = 1):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="jsonc", version=version, text=text)
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics[uri]


async def test_diagnostics_hover_simulate_edit_close(client: LanguageClient):
    diags = await open_and_wait(client, BROKEN)
    codes = [d.code for d in diags]
    assert codes == ["PL002", "PL101"], codes
    trailing = diags[0]
    assert trailing.range == types.Range(
        start=types.Position(line=3, character=30), end=types.Position(line=3, character=31)
    )
    assert "up to 20.x it ignores the file" in trailing.message
    runtime = trailing.related_information[0].message
    assert runtime.startswith("runtime: Failed to read config at '/home/user/project/.pi/extensions/pi-permission-system/config.json': Expected double-quoted property name in JSON at position")

    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(line=3, character=6))
    )
    assert "surface `bash`" in hover.contents.value

    # Ask for the quick fix of the trailing comma and apply its edit as an editor does.
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            range=trailing.range,
            context=types.CodeActionContext(diagnostics=[trailing]),
        )
    )
    fix = actions[0]
    assert fix.title == "Remove the trailing comma"
    assert fix.kind == types.CodeActionKind.QuickFix
    [edit] = fix.edit.changes[URI]
    assert edit.new_text == "" and edit.range == trailing.range
    # And the state fix on line 4.
    state_fix = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            range=diags[1].range,
            context=types.CodeActionContext(diagnostics=[diags[1]]),
        )
    )
    assert state_fix[0].title == 'Change to "allow"'
    [state_edit] = state_fix[0].edit.changes[URI]

    # Apply both edits with incremental changes, as an editor sends them.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=state_edit.range, text=state_edit.new_text),
                types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text),
            ],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[URI]) == []

    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="permission-lsp.simulate",
            arguments=[{"uri": URI, "tool": "bash", "input": {"command": "git status && rm -rf build"}, "home": "/nonexistent"}],
        )
    )
    assert result["decision"] == "ask"
    assert result["agent_message"] == (
        "[pi-permission-system] Running bash command 'rm -rf build' requires approval, but no interactive UI is available."
    )
    assert result["rule"]["scope"] == "project"

    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    assert lenses[0].command.command == "permission-lsp.simulateCommandLine"

    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=URI)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[URI]) == []


async def test_utf8_positions(client_utf8: LanguageClient):
    assert client_utf8.negotiated_encoding == types.PositionEncodingKind.Utf8
    diags = await open_and_wait(client_utf8, '{"permission": {"bash": {"é😀": "Allow"}}}')
    assert diags[0].range.start == types.Position(line=0, character=35)


async def test_stress_rapid_changes_and_bad_requests(client: LanguageClient):
    published = []

    default = client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(*args):
        default(*args)
        published.append(args[-1])

    # Record every publication (with its version) next to the default handler.
    client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record

    await open_and_wait(client, "{}")
    last = 1001
    for v in range(2, last + 1):
        # Alternate between a broken and a valid document; the last one is valid.
        new = '{"permission": {"*": "ask",}}' if v % 2 == 0 else '{"permission": {"*": "ask"}}'
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=v),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)],
            )
        )
    # A malformed JSON-RPC message on the wire: answered with a parse error,
    # and the session goes on.
    res = client.protocol.writer.write(b"Content-Length: 9\r\n\r\n{not json")
    if asyncio.iscoroutine(res):
        await res
    # Requests with positions past the end and for unknown documents.
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(line=500, character=500))
    )
    assert hover is None
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri="file:///never/opened.json"), position=types.Position(line=0, character=0))
    )
    assert hover is None
    with pytest.raises(Exception):
        await client.protocol.send_request_async("permission-lsp/doesNotExist", {})
    # Diagnostics are published per version, never out of order; the last
    # ones are those of the final text.
    for _ in range(400):
        if published and published[-1].version == last:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    versions = [p.version for p in published if p.uri == URI]
    assert versions[-1] == last, versions[-5:]
    assert versions == sorted(versions), "an older result was published after a newer one"
    assert list(client.diagnostics[URI]) == []


PRECEDENCE = """{
  "permission": {
    "bash": {
      "git push *": "deny",
      "git *": "allow"
    }
  }
}
"""


def apply_edits(text: str, edits: list) -> str:
    """Applies LSP text edits (ASCII text: UTF-16 columns are characters)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(p: types.Position) -> int:
        return starts[p.line] + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


async def test_precedence_fix_completion_and_outline(client: LanguageClient):
    uri = "file:///home/user/precedence/.pi/extensions/pi-permission-system/config.json"
    diags = await open_and_wait(client, PRECEDENCE, uri=uri)
    assert [d.code for d in diags] == ["PL210"]
    overridden = diags[0]
    assert "`git push` is decided by `git *` → allow" in overridden.message
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=overridden.range,
            context=types.CodeActionContext(diagnostics=[overridden]),
        )
    )
    move = next(a for a in actions if a.title.startswith("Move after"))
    fixed = apply_edits(PRECEDENCE, move.edit.changes[uri])
    assert fixed.index('"git *"') < fixed.index('"git push *"')
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []

    # Completion of a pattern's value offers the deny-with-reason snippet.
    line = fixed.split("\n").index('      "git push *": "deny"')
    completion = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=len('      "git push *": "d')),
        )
    )
    items = completion.items if hasattr(completion, "items") else completion
    assert "deny with reason" in [i.label for i in items]

    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    bash = symbols[0].children[0]
    assert bash.name == "bash" and [c.name for c in bash.children] == ["git *", "git push *"]


QWEN_URI = "file:///home/user/qwen-project/.qwen/settings.json"
QWEN = """{
  // Qwen Code reads comments
  "permissions": {
    "allow": ["Bash(echo *)", "bash(npm test)"],
    "deny": ["Bash(git push *)"]
  }
}
"""


async def test_qwen_code_settings(client: LanguageClient):
    """A Qwen Code file: its own findings, the rename fix, its simulation."""
    diags = await open_and_wait(client, QWEN, QWEN_URI)
    codes = sorted(d.code for d in diags)
    assert codes == ["QW003", "QW006"], codes
    bypass = next(d for d in diags if d.code == "QW006")
    assert "`echo $(git push)` runs" in bypass.message
    wrong = next(d for d in diags if d.code == "QW003")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=QWEN_URI),
            range=wrong.range,
            context=types.CodeActionContext(diagnostics=[wrong]),
        )
    )
    fix = next(a for a in actions if a.title == "Write `Bash`")
    [edit] = fix.edit.changes[QWEN_URI]
    assert edit.new_text == "Bash"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="permission-lsp.simulate",
            arguments=[{
                "uri": QWEN_URI,
                "tool": "run_shell_command",
                "input": {"command": "git push origin"},
                "home": "/nonexistent",
            }],
        )
    )
    assert result["decision"] == "deny"
    assert result["rule"]["pattern"] == "Bash(git push *)"


GEMINI_URI = "file:///home/user/dotfiles/dot_gemini/policies/rules.toml"
GEMINI = """[[rule]]
toolName = "run_shell_command"
commandPrefix = "git"
decision = "allow"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "deny"
priority = 5

[[rule]]
toolName = "run_shell_comand"
decision = "deny"
priority = 100
"""


async def test_gemini_cli_policy_file(client: LanguageClient):
    """A Gemini CLI policy file (TOML): the allow that beats a deny, the
    rename fix, hover with the effective priority, its simulation."""
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=GEMINI_URI, language_id="toml", version=1, text=GEMINI)
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    diags = client.diagnostics[GEMINI_URI]
    codes = sorted(d.code for d in diags)
    assert codes == ["GM006", "GM008"], codes
    beaten = next(d for d in diags if d.code == "GM008")
    assert "`git push` → allow" in beaten.message
    wrong = next(d for d in diags if d.code == "GM006")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=GEMINI_URI),
            range=wrong.range,
            context=types.CodeActionContext(diagnostics=[wrong]),
        )
    )
    fix = next(a for a in actions if a.title == "Use `run_shell_command`")
    [edit] = fix.edit.changes[GEMINI_URI]
    assert edit.new_text == '"run_shell_command"'
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=GEMINI_URI),
            position=types.Position(line=8, character=3),
        )
    )
    assert "Effective priority **4.005**" in hover.contents.value
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="permission-lsp.simulate",
            arguments=[{
                "uri": GEMINI_URI,
                "tool": "run_shell_command",
                "input": {"command": "git push origin"},
                "home": "/nonexistent",
            }],
        )
    )
    assert result["decision"] == "allow"
    assert result["rule"]["pattern"] == 'commandPrefix "git"', result["rule"]
