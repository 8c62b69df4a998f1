// Types of hostile-logs.mjs, for the tests that read its logs.
export declare function ordinaryLog(bytes: number): string;
export declare const HOSTILE_LOGS: Record<
  | 'markers on one line'
  | 'unclosed starts'
  | 'ends without starts'
  | 'unclosed starts, then stray ends'
  | 'alternating start and end'
  | 'very long lines'
  | 'carriage returns',
  (bytes: number) => string
>;
