// Written with document.write by an inline script: runs once that script ends,
// before the parser goes on.
window.writtenRan = true;
order.push('written external script, after the writer, before what follows it: ' + !document.getElementById('after-write'));
