// Reading a Prometheus text exposition in tests: one series' value by its name and some of its labels.
/** The value of one series, e.g. series(text, 'forgeops_calls_total', { operation: 'list_pipelines', … }). */
export function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`${name}{`) || l.startsWith(`${name} `)
        ? Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`))
        : false,
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
