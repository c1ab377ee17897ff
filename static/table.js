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
