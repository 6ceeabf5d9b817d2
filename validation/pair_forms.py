#!/usr/bin/env python3
"""The three forms of an emitted SpinFlap/IspinEx program measured in h200_emit29_forms.json.

Before element pairs (docs/emit.md, "Element pairs") emit wrote a complex number's
two halves `X[..][0]`, `X[..][1]` as two 4-byte accesses. To measure what pairing
them is worth before emit did it, each program emitted then was rewritten by this
script, on the kernel's text between `__global__` and the host driver, for the
arrays A, B and C of those files (float, last dimension 2):
  S   two consecutive stores of one pair (also across `} if (sk_active) {`)
      -> one `*(float2 *)&X[..][0] = make_float2(e0, e1);`
  SL  and the reads of a pair on one line or the next -> one float2 load into a
      temporary, its .x and .y read
    python3 validation/pair_forms.py S|SL IN.cu OUT.cu
A measuring aid for these six files, not a general rewriter: emit does it on the
C AST (src/emit/EmitPairs.cpp), with the checks that make it sound.
"""
import re,sys,os
mode=sys.argv[1]; src=sys.argv[2]; dst=sys.argv[3]
def accesses(line):
    out=[]
    for m in re.finditer(r'\b([ABC])\[',line):
        i=m.end()-1; s=m.start(); subs=[]
        while i<len(line) and line[i]=='[':
            depth=0; j=i
            while True:
                if line[j]=='[': depth+=1
                elif line[j]==']':
                    depth-=1
                    if depth==0: break
                j+=1
            subs.append(line[i+1:j]); i=j+1
        if subs and subs[-1] in ('0','1'):
            out.append((s,i,line[s:i],line[s:i-3]))  # full text, prefix without [k]
    return out
cnt=[0,0]
def conv(lines):
    out=[]; k=0; n=0
    while k<len(lines):
        l=lines[k]; nxt=lines[k+1] if k+1<len(lines) else ''
        if 'S' in mode:
            m=re.match(r'^(\s*)(.*)\[0\] = (.*);$',l); m2=re.match(r'^(\s*)(.*)\[1\] = (.*);$',nxt)
            skip=2
            if m and not m2 and k+3<len(lines) and lines[k+1].strip()=='}' and lines[k+2].strip()=='if (sk_active) {':
                m2=re.match(r'^(\s*)(.*)\[1\] = (.*);$',lines[k+3]); skip=4
            if m and m2 and m.group(2)==m2.group(2) and re.match(r'^[ABC]\[',m.group(2)):
                out.append('%s*(float2 *)&%s[0] = make_float2(%s, %s);'%(m.group(1),m.group(2),m.group(3),m2.group(3))); k+=skip; cnt[0]+=1; continue
        if 'L' in mode:
            both=l+'\n'+nxt
            acc=[a for a in accesses(l) if a[2].endswith('[0]')]
            done=False
            for a in acc:
                pre=a[3]
                if pre+'[1]' in l or pre+'[1]' in nxt:
                    if re.match(r'^\s*'+re.escape(pre)+r'\[[01]\] =',l) : continue
                    n+=1; v='sk_p%d'%n; cnt[1]+=1
                    ind=re.match(r'^\s*',l).group(0)
                    out.append('%sconst float2 %s = *(const float2 *)&%s[0];'%(ind,v,pre))
                    l=l.replace(pre+'[0]',v+'.x').replace(pre+'[1]',v+'.y')
                    if pre+'[1]' in nxt: nxt=nxt.replace(pre+'[1]',v+'.y'); lines[k+1]=nxt
            out.append(l); k+=1; continue
        out.append(l); k+=1
    return out
L=open(src).read().split('\n')
g=[i for i,l in enumerate(L) if '__global__ void' in l][0]
e=[i for i,l in enumerate(L) if l.startswith('#ifndef __CUDA_ARCH__')][0]
L=L[:g]+conv(L[g:e])+L[e:]
open(dst,'w').write('\n'.join(L))
print(os.path.basename(src),'stores',cnt[0],'loads',cnt[1])
