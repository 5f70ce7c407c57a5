// The live page: each new step the server sends (server-sent events from
// /fights/<n>/events) is added to the list; at the fight's end the stream closes and
// the note says so. Without this script the page says to reload it.
"use strict";
(() => {
  const list = document.getElementById("live-steps");
  const note = document.getElementById("live-note");
  const address = list && list.dataset.events;
  if (!address || !note || typeof EventSource === "undefined") {
    return;
  }
  const replay = address.replace(/\/events.*$/, "");
  const paragraph = (kind, text) => {
    const p = document.createElement("p");
    p.className = kind;
    p.textContent = text;
    return p;
  };
  const source = new EventSource(address);
  const watching = () => {
    note.textContent = "Going on: new steps appear below as they are played.";
  };
  watching();
  source.addEventListener("open", watching);
  source.addEventListener("step", (event) => {
    const step = JSON.parse(event.data);
    if (document.getElementById(`step-${step.number}`)) {
      return;
    }
    const item = document.createElement("li");
    item.id = `step-${step.number}`;
    const link = document.createElement("a");
    link.href = `${replay}?step=${step.number}#step`;
    link.textContent = `Step ${step.number}`;
    item.append(link, paragraph("said", step.line), paragraph("sent", step.sent),
                paragraph("state", step.state));
    list.append(item);
  });
  source.addEventListener("end", (event) => {
    const end = JSON.parse(event.data);
    source.close();
    note.textContent = `${end.line} `;
    const link = document.createElement("a");
    link.href = end.replay;
    link.textContent = "The replay";
    note.append(link);
    note.dataset.over = "yes";
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CONNECTING) {
      note.textContent = "Connection lost: trying again (or reload the page).";
    } else if (source.readyState === EventSource.CLOSED && !note.dataset.over) {
      // refused for good (the server busy, the sign-in gone): nothing is live any more
      note.textContent = "Not live: the server did not keep the stream; reload the page.";
    }
  });
})();
