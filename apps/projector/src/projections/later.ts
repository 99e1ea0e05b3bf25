/** The later of two ISO-8601 instants (columns that take the latest time never go back). */
export function later(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a;
}
