// Turns zod's compiled parsers off before any schema is built: zod probes for them with new Function(''), an eval
// that the view's policy (no 'unsafe-eval') refuses and reports on every load. Imported first by main.ts, so it runs
// before the SDK's modules build their schemas.
import { z } from 'zod';

z.config({ jitless: true });
