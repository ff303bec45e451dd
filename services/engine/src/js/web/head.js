// The web prelude, evaluated after the DOM prelude (js/dom/, see js/mod.rs;
// it is the files of js/web/ joined in order): network
// (fetch, XMLHttpRequest, with same-origin and CORS rules), Blob and
// FormData, form submission, text encodings, base64 and crypto. Requests go
// through the host's `network.fetch` import synchronously; their results are
// delivered in tasks, so pages see them asynchronously as in a browser.
(function (native, internals) {
  'use strict';
  const g = globalThis;
  const { Event, EventTarget, ProgressEvent, SubmitEvent, hidden, toText, queueTask, reportError, defineHandlers, InertDocument, inertHtml } = internals;

