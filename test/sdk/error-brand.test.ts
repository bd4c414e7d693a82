// Errors are recognised by their registry-wide brand, so `instanceof` and `isProxyAccountError`
// work on errors thrown by another copy of the SDK (two versions in one tree, a bundle and a test).
import {
  ApiError,
  AuthenticationError,
  ClientBannedError,
  isProxyAccountError,
  NotFoundError,
  ProxyAccountError,
  RequestError,
  TimeoutError,
  ValidationError,
} from '../../src/sdk';

const details = { method: 'GET', path: '/x/', operation: 'x', status: 404, responseText: '' };

/** A second, independent copy of the errors module, as with two SDK versions in one tree. */
function otherCopy(): typeof import('../../src/sdk/errors') {
  let copy: typeof import('../../src/sdk/errors') | undefined;
  jest.isolateModules(() => {
    copy = require('../../src/sdk/errors') as typeof import('../../src/sdk/errors');
  });
  if (copy === undefined) throw new Error('no copy loaded');
  return copy;
}

describe('errors from another copy of the SDK', () => {
  const copy = otherCopy();

  it('is really another copy (distinct classes)', () => {
    expect(copy.NotFoundError).not.toBe(NotFoundError);
    expect(copy.ProxyAccountError).not.toBe(ProxyAccountError);
  });

  it('match instanceof of the base class and of each class they were built from', () => {
    const foreign = new copy.NotFoundError(details);
    expect(foreign).toBeInstanceOf(ProxyAccountError);
    expect(foreign).toBeInstanceOf(ApiError);
    expect(foreign).toBeInstanceOf(NotFoundError);
    expect(foreign).toBeInstanceOf(Error);
  });

  it('do not match classes they were not built from', () => {
    const foreign = new copy.NotFoundError(details);
    expect(foreign).not.toBeInstanceOf(ValidationError);
    expect(foreign).not.toBeInstanceOf(AuthenticationError);
    expect(foreign).not.toBeInstanceOf(RequestError);
    const timeout = new copy.TimeoutError({ method: 'GET', path: '/x/', operation: 'x' }, 5, 1);
    expect(timeout).toBeInstanceOf(TimeoutError);
    expect(timeout).toBeInstanceOf(RequestError);
    expect(timeout).not.toBeInstanceOf(ApiError);
  });

  it("and ours match the other copy's classes the same way", () => {
    const ours = new ClientBannedError({ method: 'GET', path: '/x/', operation: 'x' }, 60);
    expect(ours).toBeInstanceOf(copy.ProxyAccountError);
    expect(ours).toBeInstanceOf(copy.ClientBannedError);
    expect(ours).not.toBeInstanceOf(copy.BannedError);
  });

  it('are recognised by isProxyAccountError, with and without a code', () => {
    const foreign: unknown = new copy.NotFoundError(details);
    expect(isProxyAccountError(foreign)).toBe(true);
    expect(isProxyAccountError(foreign, 'ERR_NOT_FOUND')).toBe(true);
    expect(isProxyAccountError(foreign, 'ERR_VALIDATION')).toBe(false);
    if (isProxyAccountError(foreign, 'ERR_NOT_FOUND')) {
      // The narrowed type carries the literal code.
      const code: 'ERR_NOT_FOUND' = foreign.code;
      expect(code).toBe('ERR_NOT_FOUND');
    }
  });
});

describe('look-alikes are not SDK errors', () => {
  it('a Node error with an ERR_ code (new URL("x")) is not one', () => {
    let nodeError: unknown;
    try {
      new URL('x');
    } catch (e) {
      nodeError = e;
    }
    expect((nodeError as { code?: string }).code).toBe('ERR_INVALID_URL');
    expect(isProxyAccountError(nodeError)).toBe(false);
    expect(nodeError).not.toBeInstanceOf(ProxyAccountError);
  });

  it('plain values and objects with a code are not', () => {
    for (const v of [null, undefined, 'ERR_NETWORK', 42, { code: 'ERR_NETWORK' }, Object.assign(new Error('x'), { code: 'ERR_NETWORK' })]) {
      expect(isProxyAccountError(v)).toBe(false);
      expect(v instanceof ProxyAccountError).toBe(false);
    }
  });

  it('a user subclass still works with plain prototype instanceof', () => {
    class Mine extends ProxyAccountError {}
    const m = new Mine('ERR_SERVER', 'x');
    expect(m).toBeInstanceOf(Mine);
    expect(m).toBeInstanceOf(ProxyAccountError);
    expect(new NotFoundError(details)).not.toBeInstanceOf(Mine);
  });
});
