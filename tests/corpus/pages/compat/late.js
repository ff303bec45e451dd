// Loaded by compat.html through a script element whose src was set after it
// was inserted (as Sphinx's search loads its index).
window.__lateScript = (window.__lateScript || 0) + 1;
