importScripts('helper.js');
self.addEventListener('message', function (e) {
  var xhr = new XMLHttpRequest();
  xhr.open('GET', 'data.json');
  xhr.onload = function () {
    fetch('data.json').then(function (r) { return r.json(); }).then(function (fetched) {
      postMessage({
        doubled: double(e.data.n),
        sumOf: e.data.list,
        sum: e.data.list.reduce(function (a, b) { return a + b; }, 0),
        listIsOwnArray: e.data.list instanceof Array,
        nested: e.data.nested.a,
        xhr: JSON.parse(xhr.responseText).words,
        fetched: fetched.words,
        scope: [typeof document, typeof window, self instanceof WorkerGlobalScope, typeof importScripts,
          location.pathname.split('/').pop(), self === globalThis],
      });
    });
  };
  xhr.send();
});
