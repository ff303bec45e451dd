// What a typical site's script does once a page has loaded: count the visit,
// mark the page as scripted, give every section heading an anchor and list
// them in a table of contents, and mark outbound links. Every corpus page loads
// it, so every bench row pays for a JavaScript realm and a little DOM work, and
// every load changes localStorage (so the fleet's checkpoints write).
(function () {
  var visits = Number(localStorage.getItem('visits') || 0) + 1;
  localStorage.setItem('visits', String(visits));
  document.documentElement.className += ' js';
  var headings = document.querySelectorAll('h2, h3');
  if (headings.length > 1) {
    var list = document.createElement('ol');
    for (var i = 0; i < headings.length; i++) {
      var heading = headings[i];
      if (!heading.id) heading.id = 'section-' + (i + 1);
      var link = document.createElement('a');
      link.href = '#' + heading.id;
      link.textContent = heading.textContent.trim();
      var item = document.createElement('li');
      item.appendChild(link);
      list.appendChild(item);
    }
    var toc = document.createElement('nav');
    toc.className = 'toc';
    toc.setAttribute('aria-label', 'Contents');
    toc.appendChild(list);
    var main = document.querySelector('main') || document.body;
    main.insertBefore(toc, main.firstChild);
  }
  var links = document.querySelectorAll('a[href^="http"]');
  for (var j = 0; j < links.length; j++) {
    if (links[j].host !== location.host) {
      links[j].rel = 'noopener';
      links[j].classList.add('external');
    }
  }
})();
