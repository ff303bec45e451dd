// An async script: runs whenever it arrives, but before the load event.
window.asyncRan = true;
window.asyncCurrentScript = document.currentScript && document.currentScript.id;
