// The table's amount controls: the slider and the number field show the same amount, so
// either may be used (the number field is what the form sends).
document.addEventListener("input", (event) => {
  const source = event.target;
  if (!(source instanceof HTMLInputElement) || !source.dataset.mirror) return;
  const other = document.getElementById(source.dataset.mirror);
  if (other instanceof HTMLInputElement) other.value = source.value;
});

// A move or a new hand asked for while the coach's figures are still being fetched: both
// answers replace the table, and the later one would bury the other (a new hand could be
// dealt and not shown). So the fetch in flight is stopped, and none starts during a move.
document.addEventListener("htmx:beforeRequest", (event) => {
  const source = event.detail.elt;
  if (!(source instanceof Element)) return;
  const coach = document.getElementById("coach");
  if (source === coach) {
    if (document.querySelector("#table form.htmx-request")) event.preventDefault();
    return;
  }
  if (coach && coach.dataset.analysis === "pending" && source.closest("#table")) {
    htmx.trigger(coach, "htmx:abort");
  }
});

// The results panel is drawn again after every move and every answer of the coach; an
// explanation the reader opened there stays open rather than snapping shut under their eyes.
const openExplanations = new Set();
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (!(details instanceof HTMLDetailsElement) || !details.id || !details.closest("#results")) return;
  if (details.open) openExplanations.add(details.id);
  else openExplanations.delete(details.id);
}, true);
document.addEventListener("htmx:load", (event) => {
  const added = event.detail.elt;
  if (!(added instanceof Element)) return;
  for (const id of openExplanations) {
    const details = document.getElementById(id);
    if (details instanceof HTMLDetailsElement && added.contains(details)) details.open = true;
  }
});
