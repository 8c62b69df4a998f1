// The command line every benchmark reads: --smoke (tiny counts, so the test suite can run it and nothing rots; no
// number it prints is then a measurement) and its positional numbers, in order.
export const smoke = process.argv.includes('--smoke');
export const numbers = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith('--'))
  .map(Number);
