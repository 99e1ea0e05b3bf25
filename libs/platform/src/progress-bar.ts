/** A text progress bar: `fraction` (clamped to 0..1) of `width` cells filled with `#`, the rest `.`. */
export function progressBar(fraction: number, width = 30): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
}
