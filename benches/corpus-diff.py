#!/usr/bin/env python3
"""diff on every real config of a corpus folder with a seeded edit (a new deny of
`seeded-probe`): is each comparison complete, and is the new deny found?
Usage, from the repository root after `cargo build --release`:
    python3 benches/corpus-diff.py claude|opencode|pi [CORPUS_DIR]
"""
import json, os, subprocess, sys, shutil, glob, tempfile
B=os.path.abspath('target/release/permission-lsp')
fmt=sys.argv[1]
files=sorted(glob.glob(os.path.join(sys.argv[2] if len(sys.argv) > 2 else '../shared/corpus', fmt, '*')))
stats={'files':0,'skipped':0,'complete':0,'incomplete':0,'found':0,'missed':[], 'times':[]}
import time

def deny_in_bash_map(d):
    """OpenCode and pi: a `seeded-probe *` deny last in the bash map."""
    p=d.setdefault('permission',{})
    if not isinstance(p,dict): d['permission']=p={}
    b=p.get('bash')
    if not isinstance(b,dict): p['bash']=b=({'*':b} if isinstance(b,str) else {})
    b['seeded-probe *']='deny'
for f in files:
    if f.endswith('.tsv') or f.endswith('.md') and fmt!='pi': 
        continue
    if fmt=='pi' and f.endswith('.md'):
        continue
    try:
        text=open(f).read()
        d=json.loads(text)
    except Exception:
        stats['skipped']+=1; continue
    if not isinstance(d,dict): stats['skipped']+=1; continue
    root=os.path.join(tempfile.gettempdir(), 'permission-lsp-corpus-diff'); shutil.rmtree(root, ignore_errors=True)
    repo=root+'/repo'; home=root+'/home'; os.makedirs(repo); os.makedirs(home)
    if fmt=='claude':
        path=repo+'/.claude/settings.json'
        p=d.get('permissions')
        if not isinstance(p,dict): stats['skipped']+=1; continue
        json.dump({"projects":{repo:{"hasTrustDialogAccepted":True}}}, open(home+'/.claude.json','w'))
        def edit(d):
            d['permissions'].setdefault('deny',[])
            if not isinstance(d['permissions']['deny'],list): d['permissions']['deny']=[]
            d['permissions']['deny'].append('Bash(seeded-probe:*)')
        args=['--runtime','claude']
    elif fmt=='opencode':
        path=repo+'/opencode.json'
        edit=deny_in_bash_map
        args=['--runtime','opencode','--runtime-env',f'XDG_CONFIG_HOME={home}/.config']
    else:
        path=repo+'/.pi/extensions/pi-permission-system/config.json'
        edit=deny_in_bash_map
        args=['--runtime','pi']
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path,'w').write(text)
    subprocess.run(['git','init','-q'],cwd=repo); subprocess.run(['git','add','-A'],cwd=repo)
    subprocess.run(['git','-c','user.email=a@b','-c','user.name=a','commit','-qm','b'],cwd=repo)
    try:
        edit(d)
    except Exception as e:
        stats['skipped']+=1; continue
    json.dump(d, open(path,'w'), indent=2)
    t=time.time()
    r=subprocess.run([B,'diff','--home',home,'--format','json']+args,cwd=repo,capture_output=True,text=True)
    stats['times'].append(time.time()-t)
    stats['files']+=1
    try:
        j=json.loads(r.stdout.splitlines()[0])
    except Exception:
        stats['missed'].append((os.path.basename(f),'no json',r.stderr[:200])); continue
    if j['incomplete']: stats['incomplete']+=1; stats['missed'].append((os.path.basename(f),'incomplete',j['incomplete']))
    else: stats['complete']+=1
    if any(x['after']=='deny' and 'seeded-probe' in json.dumps(x['input']) for x in j['differences']): stats['found']+=1
    else: stats['missed'].append((os.path.basename(f),'not found', [ (x['before'],x['after'],x['example']) for x in j['differences']][:3]))
t=stats.pop('times')
print(fmt, stats['files'], 'compared,', stats['skipped'],'skipped,', stats['complete'],'complete,', stats['incomplete'],'incomplete,', stats['found'],'found; max %.2fs, total %.1fs'%(max(t) if t else 0, sum(t)))
for m in stats['missed'][:10]: print('  ', m)
