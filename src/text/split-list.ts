// Comma-separated settings, read the same way wherever they are read (config.ts, the command line's options).

/** A comma-separated setting as its non-empty items; also how the CLI reads the same lists given as options. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
