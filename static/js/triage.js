// Keyboard triage for the review queue: j/k to move, p/r/s/m for the actions, x to select,
// X to select a whole group (or page), P/R/S to promote, reject or suppress every selected
// card, u to undo the last decision or batch (wherever the focus is), e to edit the label,
// ? for help. The buttons do the work (htmx posts them, or the batch form is submitted);
// this file only moves focus and clicks, so every action also works with the mouse.
(function () {
  "use strict";
  var current = null;
  // The id of the card whose decision was the last one made on this page: "u" undoes it
  // from anywhere, even once the focus has moved on to the next card.
  var lastDecided = null;

  var CARDS = "#queue .card[data-candidate], #groups .card[data-candidate], #expired .card[data-candidate]";

  function cards() {
    return Array.prototype.slice.call(document.querySelectorAll(CARDS));
  }

  // X: select every card of the current card's group (the page's, outside a group), or
  // none if they all are already.
  function selectGroup() {
    if (!current) move(1);
    var scope = (current && current.closest("[data-group]")) || document;
    var boxes = Array.prototype.slice.call(scope.querySelectorAll(".card input.select"));
    var all = boxes.length && boxes.every(function (box) { return box.checked; });
    boxes.forEach(function (box) { box.checked = !all; });
  }

  // P, R, S: the batch form's button, if any card is selected.
  function batch(action) {
    var chosen = document.querySelector('.card input.select[form="bulk-form"]:checked');
    var button = document.querySelector('#bulk-form [data-batch="' + action + '"]');
    if (chosen && button) button.click();
  }

  function select(card) {
    if (current && current !== card) current.classList.remove("is-current");
    current = card;
    if (!card) return;
    card.classList.add("is-current");
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    var all = cards();
    if (!all.length) return;
    var index = all.indexOf(current);
    if (index < 0) index = step > 0 ? -1 : all.length;
    select(all[Math.min(all.length - 1, Math.max(0, index + step))]);
  }

  function nextPending(from) {
    var all = cards();
    var start = Math.max(0, all.indexOf(from));
    for (var i = start; i < all.length; i++) if (!all[i].hasAttribute("data-decided")) return all[i];
    for (var j = start - 1; j >= 0; j--) if (!all[j].hasAttribute("data-decided")) return all[j];
    return all[start] || null;
  }

  // A card swapped by htmx is a new element: find the current card again by its id, and
  // move past it if it has just been decided.
  function refresh() {
    if (!current || document.body.contains(current)) return;
    var fresh = document.getElementById(current.id);
    current = null;
    if (fresh) select(fresh.hasAttribute("data-decided") ? nextPending(fresh) : fresh);
  }

  function click(action) {
    if (!current) move(1);
    if (!current) return;
    var target = current.querySelector('[data-action="' + action + '"]');
    if (!target) return;
    if (action === "merge") {
      var details = target.closest("details");
      details.open = true;
      var search = details.querySelector("[data-picker]");
      if (search) search.focus();
      else {
        // Opening the section fetches its form (htmx): focus the search box once it is in.
        details.addEventListener("htmx:afterSettle", function () {
          var loaded = details.querySelector("[data-picker]");
          if (loaded) loaded.focus();
        }, { once: true });
      }
      return;
    }
    // A card swapped in a moment ago is wired up by htmx only when it settles; wire it now
    // so a fast key press posts through htmx rather than as a plain form.
    if (window.htmx) window.htmx.process(current);
    target.click();
  }

  function undoLast() {
    var card = lastDecided && document.getElementById(lastDecided);
    var button = card && card.querySelector('[data-action="undo"]');
    if (button) {
      select(card);
      if (window.htmx) window.htmx.process(card);
      button.click();
      return;
    }
    // Nothing decided since the page loaded: the last decision is the one the page's undo
    // bar offers (a bulk decision, or one made before a reload).
    var bar = document.querySelector(".undo-bar button[type=submit]");
    if (bar) bar.click();
    else click("undo");
  }

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function toggleHelp() {
    var help = document.getElementById("keys-help");
    if (!help) return;
    if (help.open) help.close();
    else help.showModal();
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // Enter in the merge search box searches; it must not submit the merge form.
    if (event.key === "Enter" && event.target.matches && event.target.matches("[data-picker]")) {
      event.preventDefault();
      return;
    }
    if (event.key === "Escape" && typing(event.target)) {
      event.target.blur();
      if (current) current.focus({ preventScroll: true });
      return;
    }
    if (typing(event.target) || (document.getElementById("keys-help") || {}).open) {
      if (event.key === "?" && !typing(event.target)) toggleHelp();
      return;
    }
    refresh();
    var actions = { p: "promote", r: "reject", s: "suppress", m: "merge" };
    var batches = { P: "promote", R: "reject", S: "suppress" };
    if (event.key === "j") move(1);
    else if (batches[event.key]) batch(batches[event.key]);
    else if (event.key === "X") selectGroup();
    else if (event.key === "u") undoLast();
    else if (event.key === "k") move(-1);
    else if (event.key === "?") toggleHelp();
    else if (event.key === "x") {
      if (!current) move(1);
      var box = current && current.querySelector("input.select");
      if (box) box.checked = !box.checked;
    } else if (event.key === "e") {
      if (!current) move(1);
      var edit = current && current.querySelector("[data-edit]");
      if (edit) edit.select();
    } else if (actions[event.key]) click(actions[event.key]);
    else return;
    event.preventDefault();
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-keys-help]")) toggleHelp();
    var card = event.target.closest && event.target.closest(CARDS);
    if (card) select(card);
  });

  function swappedCard(event) {
    var card = event.detail.elt;
    return card && card.matches && card.matches(".card[data-candidate]") ? card : null;
  }

  // The decision is recorded the moment its card is in the page (swap), not when htmx has
  // settled it a few milliseconds later: a "u" pressed in between must undo this decision.
  document.addEventListener("htmx:afterSwap", function (event) {
    var card = swappedCard(event);
    if (!card) return;
    if (card.hasAttribute("data-decided")) lastDecided = card.id;
    else if (lastDecided === card.id) lastDecided = null; // undone: nothing left to undo there
  });

  // After a card is swapped: keep the place, and move on to the next card still waiting.
  document.addEventListener("htmx:afterSettle", function (event) {
    var card = swappedCard(event);
    if (!card) return;
    // Only when the card that had the focus was replaced: if a key press already moved on
    // (see refresh), the person's place wins.
    if (current && !document.body.contains(current) && current.id === card.id) {
      current = null;
      select(card.hasAttribute("data-decided") ? nextPending(card) : card);
    }
  });
})();
