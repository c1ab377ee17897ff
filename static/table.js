// The table's amount controls: the slider and the number field show the same amount, so
// either may be used (the number field is what the form sends).
document.addEventListener("input", (event) => {
  const source = event.target;
  if (!(source instanceof HTMLInputElement) || !source.dataset.mirror) return;
  const other = document.getElementById(source.dataset.mirror);
  if (other instanceof HTMLInputElement) other.value = source.value;
});
