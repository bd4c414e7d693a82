// SDK errors → diagnostics: short summary, detail naming the object and the cause, attribute
// path for an argument error, clear authentication and ban messages, never a secret.
import { describeProxyAccountError } from '../../src/provider/errors';
import { diagnosticFromError as frameworkDiagnostic, type ErrorContext } from '../../src/provider/framework';

/** The framework's conversion with the provider's reading of its errors, as the server runs it. */
const diagnosticFromError = (err: unknown, c: ErrorContext) => frameworkDiagnostic(err, c, describeProxyAccountError);
import {
  AuthenticationError,
  BannedError,
  BasicAuthRequiredError,
  CredentialsRejectedError,
  CredentialsRememberedRejectedError,
  InvalidArgumentError,
  NotFoundError,
} from '../../src/sdk';

const ctx = { summary: 'Unable to update sub-account', object: "sub-account 'alice'", attributes: ['monthly_limit', 'first_name'] };
const http = { method: 'POST', path: '/api/sub/edit/', operation: "edit sub-account 'alice'", responseText: 'nope' };

describe('diagnosticFromError', () => {
  it('names the object and keeps the SDK message as the cause', () => {
    const d = diagnosticFromError(new NotFoundError({ ...http, status: 404 }), ctx);
    expect(d).toEqual({
      severity: 'error',
      summary: 'Unable to update sub-account',
      detail: "Sub-account 'alice': POST /api/sub/edit/ (edit sub-account 'alice') failed with 404 Not Found: nope",
    });
  });

  it('puts an SDK argument error on the matching attribute (camelCase field → snake_case)', () => {
    expect(diagnosticFromError(new InvalidArgumentError('firstName', 'too long'), ctx).attribute).toEqual([{ attributeName: 'first_name' }]);
    // A field the schema does not have stays on the resource.
    expect(diagnosticFromError(new InvalidArgumentError('lastName', 'too long'), ctx).attribute).toBeUndefined();
  });

  it('explains a 401 and the refusal after it with the credential variables and the ban', () => {
    for (const err of [new AuthenticationError({ ...http, status: 401 }), new CredentialsRejectedError(http)]) {
      const d = diagnosticFromError(err, ctx);
      expect(d.summary).toBe('Authentication failed');
      expect(d.detail).toContain("Sub-account 'alice'");
      expect(d.detail).toMatch(/PROXYACCOUNT_USERNAME, PROXYACCOUNT_PASSWORD\) or token \(PROXYACCOUNT_TOKEN\)/);
      expect(d.detail).toMatch(/No further requests were sent.*4 failed authentications/);
    }
  });

  it('reports a pause after unanswered requests as a pause, not as rejected credentials', () => {
    const until = new Date('2030-01-01T00:00:00.000Z');
    const origin = 'https://api.example';
    const budget = { origin, failures: 0, unanswered: 2, banAfter: 4 };
    const paused = diagnosticFromError(new CredentialsRememberedRejectedError(http, until, '/m/auth-failures.json', budget), ctx);
    expect(paused.summary).toBe('Requests to the API paused after unanswered requests');
    expect(paused.detail).toContain("Sub-account 'alice'");
    expect(paused.detail).toContain('2 requests to https://api.example got no answer');
    expect(paused.detail).toContain('delete /m/auth-failures.json');
    expect(paused.detail).toContain('credentials were not rejected');
    expect(paused.detail).not.toContain('Check the provider credentials');
    // A remembered 401 among them, or for these credentials: the credentials are to blame.
    for (const err of [
      new CredentialsRememberedRejectedError(http, until, '/m/auth-failures.json', { ...budget, failures: 1, unanswered: 1 }),
      new CredentialsRememberedRejectedError(http, until, '/m/auth-failures.json'),
    ]) {
      const d = diagnosticFromError(err, ctx);
      expect(d.summary).toBe('Authentication failed');
      expect(d.detail).toContain('Check the provider credentials');
    }
  });

  it('explains a ban with the wait the API asked for', () => {
    const d = diagnosticFromError(new BannedError({ ...http, status: 429, retryAfterSeconds: 600 }), ctx);
    expect(d.summary).toBe('Requests temporarily banned');
    expect(d.detail).toContain('600 seconds');
  });

  it('explains that token endpoints need username and password', () => {
    expect(diagnosticFromError(new BasicAuthRequiredError('list tokens'), ctx).detail).toMatch(/PROXYACCOUNT_USERNAME/);
  });

  it('reports anything else as an unexpected error (a bug)', () => {
    const d = diagnosticFromError(new RangeError('bad index'), ctx);
    expect(d.summary).toBe('Unable to update sub-account');
    expect(d.detail).toMatch(/unexpected error: bad index.*bug/);
  });
});
