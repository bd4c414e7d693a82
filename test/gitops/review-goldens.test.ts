// `proxyaccount review` on real plans: the fixtures under goldens/ are `terraform show -json`
// output of plans the real terraform made against the emulator (create, update, replace,
// authoritative list with an out-of-band entry, import, delete; terraform_data as another
// provider), written by goldens/generate.ts. The review of each must equal its golden files, and
// no secret the plan carries in clear (passwords, write-only values, token values) may appear.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { reviewPlan } from '../../src/gitops/review';
import { reviewJson, reviewMarkdown } from '../../src/gitops/review-render';

const DIR = path.join(__dirname, 'goldens');
const PLANS = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.plan.json'))
  .map((f) => f.replace(/\.plan\.json$/, ''))
  .sort();
const SECRETS = ['golden-secret-pw-1', 'golden-wo-secret-2'];

/** Every raw token value in a plan (token attributes of bearer tokens, before or after). */
function tokenValues(json: string): string[] {
  return [...json.matchAll(/"token":\s*"(pxa_[^"]+)"/g)].map((m) => m[1]!);
}

describe.each(PLANS)('the %s plan', (name) => {
  const raw = fs.readFileSync(path.join(DIR, `${name}.plan.json`), 'utf8');
  const review = reviewPlan(parsePlanJson(JSON.parse(raw)));

  it('reviews to its golden JSON and Markdown (regenerate: PROXYACCOUNT_UPDATE_GOLDENS=1)', () => {
    const outputs = { json: reviewJson(review), md: reviewMarkdown(review) };
    if (process.env.PROXYACCOUNT_UPDATE_GOLDENS === '1') {
      fs.writeFileSync(path.join(DIR, `${name}.review.json`), outputs.json);
      fs.writeFileSync(path.join(DIR, `${name}.review.md`), outputs.md);
    }
    expect(outputs.json).toBe(fs.readFileSync(path.join(DIR, `${name}.review.json`), 'utf8'));
    expect(outputs.md).toBe(fs.readFileSync(path.join(DIR, `${name}.review.md`), 'utf8'));
  });

  it('shows no secret the plan carries', () => {
    const carried = [...SECRETS, ...tokenValues(raw)].filter((s) => raw.includes(s));
    for (const out of [reviewJson(review), reviewMarkdown(review)]) for (const s of carried) expect(out).not.toContain(s);
  });
});

it('the fixtures carry secrets in clear, so the absence test means something', () => {
  const all = PLANS.map((n) => fs.readFileSync(path.join(DIR, `${n}.plan.json`), 'utf8')).join('\n');
  for (const s of SECRETS) expect(all).toContain(s);
  expect(tokenValues(all).length).toBeGreaterThan(0);
});
