"""The HTML report's inline stylesheet and script: one file that opens offline, light or dark as the reader's
system prefers (``prefers-color-scheme``), nothing fetched. The script filters findings by severity, opens or closes
the tree, filters the trees by tensor name (the search box at the top) and opens the folds a link points into;
everything is readable without it (the files view's toggle is CSS)."""

from __future__ import annotations

CSS = """
:root{--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--accent:#0969da;
--error:#cf222e;--warning:#bf8700;--info:#0969da;--ok:#1a7f37;--share:#54aeff55;--add:#1a7f3722;--del:#cf222e22;
--chg:#bf870022;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;
--accent:#4493f8;--error:#f85149;--warning:#d29922;--info:#4493f8;--ok:#3fb950;--share:#388bfd55;--add:#2ea04333;
--del:#f8514933;--chg:#d2992233}}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;background:var(--bg);color:var(--fg);
font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif}
h1{font-size:22px;margin:0 0 6px;word-break:break-all}h2{font-size:18px;margin:28px 0 10px;
border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 8px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.muted{color:var(--muted)}
.verdict{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:700;color:#fff;margin-right:8px}
.verdict.pass{background:var(--ok)}.verdict.fail,.verdict.error{background:var(--error)}
.summary{margin:8px 0 12px;font-weight:600}
.formula{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:6px 10px;margin:4px 0;
overflow-x:auto;white-space:pre-wrap;word-break:break-word}
table{border-collapse:collapse;margin:6px 0}th,td{padding:3px 10px;border-bottom:1px solid var(--line);
text-align:left;vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.diffneg{color:var(--error)}.diffpos{color:var(--warning)}
.charts{display:flex;flex-wrap:wrap;gap:32px;align-items:flex-start}
.chart{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:12px 16px}
.donutbox{display:flex;gap:16px;align-items:center;flex-wrap:wrap}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
svg text{fill:currentColor;font-size:11px}svg .centre{font-size:15px;font-weight:700}
svg .empty{stroke:var(--line)}svg .lbl,svg .val{font-size:12px}
.layers .bar.differs{fill:var(--warning)}.layers .bar.error{fill:var(--error)}
.layers .bar.warning{fill:var(--warning)}.layers .bar.info{fill:var(--info)}.layers .bar.beyond{fill:var(--muted)}
.layers .bar.missing{stroke:var(--error);stroke-width:1.5}.layers .hatch{fill:var(--error)}
.layers .expected{stroke:var(--fg);stroke-width:2}.layers .axis{stroke:var(--line)}
.legend span{margin-right:14px;white-space:nowrap}
.tree{border:1px solid var(--line);border-radius:8px;padding:6px 0}
.row{display:grid;grid-template-columns:minmax(260px,1fr) 150px 170px 120px 70px;gap:8px;align-items:center;
padding:2px 10px 2px 0}
.row:hover{background:var(--panel)}
.row .name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.head{font-weight:600;color:var(--muted);border-bottom:1px solid var(--line);padding-bottom:4px}
details.node>summary{list-style:none;cursor:pointer}details.node>summary::-webkit-details-marker{display:none}
details.node>summary .name::before{content:"\\25B8";display:inline-block;width:14px;color:var(--muted)}
details.node[open]>summary .name::before{content:"\\25BE"}
.kids{margin-left:16px;border-left:1px dotted var(--line)}
.leaf .name{padding-left:14px}
.rep{display:inline-block;background:var(--accent);color:#fff;border-radius:8px;padding:0 6px;font-size:11px;
margin-left:6px;font-weight:600}
.badge{display:inline-block;border:1px solid var(--line);border-radius:8px;padding:0 6px;font-size:11px;
margin-left:6px;color:var(--muted)}
.share{position:relative;height:14px;background:var(--panel);border-radius:3px;overflow:hidden}
.share i{position:absolute;left:0;top:0;bottom:0;background:var(--share)}
.share b{position:relative;display:block;font-weight:400;font-size:11px;line-height:14px;padding-left:4px}
.n{text-align:right;font-variant-numeric:tabular-nums}
.dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-left:6px}
.dot.error{background:var(--error)}.dot.warning{background:var(--warning)}.dot.info{background:var(--info)}
.missing>.name,.leaf.missing .name{color:var(--error);text-decoration:line-through dotted}
.leaf.missing .name{text-decoration:none}.tag-missing{color:var(--error);font-weight:600}
.tag-unexplained{color:var(--warning);font-weight:600}
.tag-unchecked{color:var(--muted);font-style:italic;font-weight:600}
.unchecked>.name,.leaf.unchecked .name{color:var(--muted);text-decoration:underline dashed}
.layers .bar.unchecked{fill:none;stroke:var(--muted);stroke-width:1.5;stroke-dasharray:3 2}
.layers .bar.read{fill:var(--muted);opacity:.45}
table.files td.mark{width:18px;padding-right:0}table.files .dot{margin-left:0}
tr.file.missing code{color:var(--error);text-decoration:line-through dotted}tr.file.unread code{color:var(--error)}
.fcode{display:inline-block;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:11.5px;
border:1px solid var(--line);border-left-width:3px;border-radius:4px;padding:0 5px;margin:1px 4px 1px 0}
.fcode.error{border-left-color:var(--error)}.fcode.warning{border-left-color:var(--warning)}
.fcode.info{border-left-color:var(--info)}
.finding{border-left:4px solid var(--line);padding:4px 10px;margin:6px 0;background:var(--panel);border-radius:4px}
.finding.error{border-color:var(--error)}.finding.warning{border-color:var(--warning)}.finding.info{border-color:var(--info)}
.finding .sev{font-weight:700;text-transform:uppercase;font-size:11px;margin-right:6px}
.finding.error .sev{color:var(--error)}.finding.warning .sev{color:var(--warning)}.finding.info .sev{color:var(--info)}
.finding .pat{color:var(--muted);margin-top:2px}.finding .cons{margin-left:14px}
.hidden{display:none}
.toolbar{margin:6px 0 10px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
button{background:var(--panel);color:var(--fg);border:1px solid var(--line);border-radius:6px;padding:3px 10px;
cursor:pointer;font:inherit}
section.part{border:1px solid var(--line);border-radius:10px;padding:4px 18px 14px;margin:20px 0}
details.part{border:1px solid var(--line);border-radius:10px;padding:4px 18px;margin:14px 0}
details.part[open]{padding-bottom:14px}details.part>summary{cursor:pointer;padding:6px 0;font-size:15px}
details.part>summary .verdict{font-size:12px}
.drow{display:grid;grid-template-columns:minmax(260px,1fr) 130px 110px 130px 110px 120px;gap:8px;
align-items:center;padding:2px 10px 2px 0}
.drow.added{background:var(--add)}.drow.removed{background:var(--del)}.drow.changed{background:var(--chg)}
footer{margin-top:30px;color:var(--muted);font-size:12px}
nav.top{position:sticky;top:0;z-index:5;background:var(--bg);border-bottom:1px solid var(--line);margin:-24px 0 14px;
padding:8px 0;display:flex;gap:14px;align-items:center;flex-wrap:wrap;font-size:13px}
nav.top a{color:var(--accent);text-decoration:none}nav.top a:hover{text-decoration:underline}
nav.top .search{margin-left:auto;display:flex;gap:8px;align-items:center}
nav.top input{width:340px;font:inherit;padding:3px 8px;border:1px solid var(--line);border-radius:6px;
background:var(--panel);color:var(--fg)}
[id]{scroll-margin-top:56px}.treebox{scroll-margin-top:56px}
.row:target,tr:target,details:target>summary{outline:2px solid var(--accent);outline-offset:-2px}
.finding .next{margin-top:3px}.finding .next b{font-weight:600}
.finding .where{margin-top:2px;color:var(--muted)}.finding .where a{color:var(--accent)}
.findings p.ok{color:var(--ok);font-weight:600;margin:6px 0}
details.notes{margin:8px 0}details.notes>summary{cursor:pointer;color:var(--muted)}
p.differ{color:var(--warning);font-weight:600}
.nomatch{display:none}
.showall:not(:checked)+label+table tr.quiet,.showall:not(:checked)+label+table.quietall{display:none}label[for$="-allfiles"]{cursor:pointer;color:var(--accent)}
"""

JS = """
(function(){
  function applyFilter(box){
    var scope=box.closest('.findings');var on={};
    box.querySelectorAll('input[data-sev]').forEach(function(c){on[c.dataset.sev]=c.checked;});
    // consequences first (reverse document order): a root stays while one of its consequences is shown
    Array.prototype.slice.call(scope.querySelectorAll('.finding')).reverse().forEach(function(f){
      f.classList.toggle('hidden',!on[f.dataset.sev]&&!f.querySelector('.finding:not(.hidden)'));});
    var shown=scope.querySelectorAll('.finding:not(.hidden)').length;
    var none=scope.querySelector('.none');if(none){none.classList.toggle('hidden',shown>0);}
  }
  document.querySelectorAll('.sevfilter').forEach(function(box){
    box.addEventListener('change',function(){applyFilter(box);});applyFilter(box);});
  function openTarget(){  // a link to a closed section opens its fold
    var t=location.hash&&document.getElementById(location.hash.slice(1));
    for(;t;t=t.parentElement){if(t.tagName==='DETAILS'){t.open=true;}}
  }
  window.addEventListener('hashchange',openTarget);openTarget();
  function openTo(t){for(;t;t=t.parentElement){if(t.tagName==='DETAILS'){t.open=true;}}}
  // a link into the page (a finding's tree node, file row, section) opens every fold around its target first;
  // a search that hides the target is cleared
  document.addEventListener('click',function(e){
    var a=e.target.closest&&e.target.closest('a[href^="#"]');if(!a){return;}
    var t=document.getElementById(a.getAttribute('href').slice(1));if(!t){return;}
    if(box&&box.value&&(t.classList.contains('nomatch')||t.closest('.nomatch'))){box.value='';search();}
    openTo(t);
  });
  // the search over tensor names: a query is split at dots, a number segment becomes "{}" and must be one of
  // the leaf's index values at that position (data-ix), the rest a substring of its template (data-t)
  var box=document.getElementById('tsearch'),tally=document.getElementById('tcount'),saved=null;
  function within(spec,n){
    if(spec===undefined){return true;}
    return spec.split(',').some(function(r){var p=r.split('..');return n>=+p[0]&&n<=+(p.length>1?p[1]:p[0]);});
  }
  function hit(leaf,q){
    var t=(leaf.dataset.t||'').toLowerCase(),ix=leaf.dataset.ix?leaf.dataset.ix.split('|'):[],from=0;
    for(;;){
      var pos=t.indexOf(q.t,from);if(pos<0){return false;}
      var before=(t.slice(0,pos).match(/[{][}]/g)||[]).length;
      if(q.nums.every(function(n,k){return within(ix[before+k],n);})){return true;}
      from=pos+1;
    }
  }
  function search(){
    var text=box.value.trim().toLowerCase();
    if(!text){
      if(saved){saved.forEach(function(s){s[0].open=s[1];});saved=null;}
      document.querySelectorAll('.nomatch').forEach(function(e){e.classList.remove('nomatch');});
      tally.textContent='';return;
    }
    if(!saved){saved=Array.prototype.map.call(document.querySelectorAll('details'),function(d){return [d,d.open];});}
    var nums=[],q={t:text.split('.').map(function(p){if(/^[0-9]+$/.test(p)){nums.push(+p);return '{}';}return p;})
      .join('.'),nums:nums},n=0,first=null;
    document.querySelectorAll('.tree details.node').forEach(function(d){d.classList.add('nomatch');});
    document.querySelectorAll('.tree .row.leaf').forEach(function(leaf){
      var ok=hit(leaf,q);leaf.classList.toggle('nomatch',!ok);
      if(ok){n++;first=first||leaf;
        for(var e=leaf.parentElement;e;e=e.parentElement){if(e.tagName==='DETAILS'){e.classList.remove('nomatch');e.open=true;}}}
    });
    tally.textContent=n?n.toLocaleString()+' match'+(n>1?'es':'')+' in the module tree':'no tensor matches';
    if(first){var r=first.getBoundingClientRect();
      if(r.top<60||r.bottom>window.innerHeight){first.closest('.treebox').scrollIntoView({block:'start'});}}
  }
  if(box){box.addEventListener('input',search);}
  document.querySelectorAll('button[data-tree]').forEach(function(b){
    b.addEventListener('click',function(){
      var what=b.dataset.tree;var tree=b.closest('.treebox').querySelector('.tree');
      tree.querySelectorAll('details.node').forEach(function(d){
        d.open=what==='all'||(what==='findings'&&d.classList.contains('flagged'));});
    });});
})();
"""
