// A token whose label the plan does not show is reviewed as one with a hidden label, never as one
// with none: "(no label)" would tell the reviewer something false. The plans are in the shape of
// `terraform show -json`: sensitive values in clear, with `after_sensitive`/`before_sensitive`
// marking them, and unknown values null with `after_unknown`.
import { reviewMarkdown } from '../../src/gitops/review-render';
import { change, review } from './plan-changes';

const LABEL = 'SLABEL-secret-Pq90';
const token = (label: string | null, id: string | null = '7') => ({
  id,
  token_id: id === null ? null : 7,
  label,
  username: null,
  expires_at: null,
  active: true,
  created_at: null,
});
const NEW = { after_unknown: { id: true, token_id: true, created_at: true } };

describe('a token label the plan does not show', () => {
  it('marked sensitive: a create says the label is hidden, and does not show it', () => {
    const r = review(change('proxyaccount_bearer_token', 's', ['create'], null, token(LABEL, null), { ...NEW, after_sensitive: { label: true, token: true } }));
    const [created] = r.accounts.flatMap((a) => a.changes);
    expect(created?.description).toBe('token (label marked sensitive) created');
    const md = reviewMarkdown(r);
    expect(md).toContain('token (label marked sensitive) created');
    expect(md).not.toContain('(no label)');
    expect(JSON.stringify(r)).not.toContain(LABEL);
  });

  it('marked sensitive: the attention line of a delete says so too', () => {
    const r = review(change('proxyaccount_bearer_token', 's', ['delete'], token(LABEL), null, { before_sensitive: { label: true, token: true } }));
    expect(r.attention.map((a) => a.message)).toEqual(['token (label marked sensitive) of the parent account is deleted: clients using it stop working']);
    expect(JSON.stringify(r)).not.toContain(LABEL);
  });

  it('known only after apply: says so', () => {
    const r = review(change('proxyaccount_bearer_token', 'u', ['create'], null, token(null, null), { after_unknown: { ...NEW.after_unknown, label: true } }));
    expect(r.accounts.flatMap((a) => a.changes.map((c) => c.description))).toEqual(['token (label known only after apply) created']);
  });

  it('none: still "(no label)", and a shown label is quoted', () => {
    const r = review(
      change('proxyaccount_bearer_token', 'n', ['create'], null, token(null, null), NEW),
      change('proxyaccount_bearer_token', 'l', ['create'], null, token('ci', null), NEW),
    );
    expect(r.accounts.flatMap((a) => a.changes.map((c) => c.description)).sort()).toEqual(["token '(no label)' created", "token 'ci' created"]);
  });
});
