// Slack's request signature (v0: HMAC-SHA256 of "v0:<timestamp>:<raw body>" with the signing secret), as a pure
// function with an injectable clock: a forged signature or a stale timestamp is refused before anything runs.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's own window: a request older (or newer) than this is a replay, whatever its signature. */
const MAX_REQUEST_AGE_MS = 5 * 60_000;

interface SignedRequest {
  /** The raw body exactly as received (a re-encoded body would not match). */
  body: string | Buffer;
  /** X-Slack-Request-Timestamp: seconds since the epoch. */
  timestamp: string | undefined;
  /** X-Slack-Signature: "v0=<hex>". */
  signature: string | undefined;
}

type Verification = { ok: true } | { ok: false; reason: string };

/** The X-Slack-Signature Slack would send with this body at this timestamp. */
export function signatureOf(signingSecret: string, timestamp: string, body: string | Buffer): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(body);
  return `v0=${hmac.digest('hex')}`;
}

export function verifySlackSignature(
  signingSecret: string,
  request: SignedRequest,
  now: number = Date.now(),
): Verification {
  const { timestamp, signature } = request;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp))
    return { ok: false, reason: 'missing or malformed X-Slack-Request-Timestamp' };
  if (!signature || !/^v0=[0-9a-f]{64}$/.test(signature))
    return { ok: false, reason: 'missing or malformed X-Slack-Signature' };
  if (Math.abs(now - Number(timestamp) * 1000) > MAX_REQUEST_AGE_MS)
    return { ok: false, reason: 'stale X-Slack-Request-Timestamp (more than 5 minutes away)' };
  const expected = Buffer.from(signatureOf(signingSecret, timestamp, request.body));
  const given = Buffer.from(signature);
  // Both are "v0=" + 64 hex digits here, so the lengths match and the comparison takes the same time whatever differs.
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}
