// Fills the section list from the JSON data block in the head.
(function () {
  const config = JSON.parse(document.getElementById('config').textContent);
  const list = document.getElementById('sections');
  for (const name of config.sections) {
    const li = document.createElement('li');
    li.textContent = name.charAt(0).toUpperCase() + name.slice(1) + ' desk';
    list.appendChild(li);
  }
  order.push('external sections script, ' + list.children.length + ' sections');
})();
