// A deferred script: runs after parsing, before DOMContentLoaded.
order.push('deferred ' + document.currentScript.id + ' readyState ' + document.readyState + ' sees footer ' + (document.querySelector('footer') !== null));
