// An external classic script: runs before the parser goes on.
order.push('external classic ' + document.currentScript.id + ' sees byline ' + (document.getElementById('byline') !== null));
