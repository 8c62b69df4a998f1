// What forgeops's authorization server says of itself and asks people for: its RFC 8414 metadata, and the scopes of
// an authorization request as hosts send them (with words of their own, or none).
import { describe, expect, it } from 'vitest';
import { authorizationServerMetadata, requestedScopes } from '../../../src/identity/authorization-server.js';

describe('authorizationServerMetadata', () => {
  it('names its endpoints under the issuer, S256 only, public clients, iss in answers and CIMD', () => {
    const meta = authorizationServerMetadata('https://forgeops.example');
    expect(meta).toMatchObject({
      issuer: 'https://forgeops.example',
      authorization_endpoint: 'https://forgeops.example/oauth/authorize',
      token_endpoint: 'https://forgeops.example/oauth/token',
      registration_endpoint: 'https://forgeops.example/oauth/register',
      revocation_endpoint: 'https://forgeops.example/oauth/revoke',
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      scopes_supported: ['api', 'read_api'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
  });

  it('leaves the registration endpoint out when dynamic registration is off', () => {
    expect(authorizationServerMetadata('https://forgeops.example', false)).not.toHaveProperty('registration_endpoint');
  });
});

describe('requestedScopes', () => {
  it("keeps forgeops's scopes, leaves out a host's own words, and asks for api when none of its own is named", () => {
    expect(requestedScopes('read_api')).toEqual(['read_api']);
    expect(requestedScopes('api read_api offline_access')).toEqual(['api', 'read_api']);
    expect(requestedScopes('openid offline_access')).toEqual(['api']);
    expect(requestedScopes(undefined)).toEqual(['api']);
  });
});
