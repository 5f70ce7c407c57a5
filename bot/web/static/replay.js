// The replay's keys: ArrowLeft, ArrowRight, Home and End follow the step links that
// name them (data-key), as a click would. The links work without this script.
"use strict";
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.defaultPrevented) {
    return;
  }
  const target = event.target;
  if (target instanceof HTMLElement && (target.isContentEditable ||
      ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) {
    return;   // typing in a form
  }
  const link = document.querySelector(`a[data-key="${event.key}"]`);
  if (link instanceof HTMLAnchorElement) {
    event.preventDefault();
    window.location.assign(link.href);
  }
});
