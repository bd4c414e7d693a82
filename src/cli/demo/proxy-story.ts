// The end of the demo's story, on the embedded emulator: what the configuration decides shows at
// the proxy servers. A token the roster declares carries a request through an emulated proxy; a
// sub-account over its monthly limit gets 509; then the roster drops the token, the changed
// configuration is synthesized and applied like any change, and the same request is refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { proxyDispatcher } from '../../sdk';
import type { ProcessGroup } from './processes';
import type { Progress } from './progress';
import { readAppCommand, synthesize } from './synth';
import type { DemoTarget } from './target';
import type { Terraform } from './terraform';

/** The proxy the demo's parent authorizes. */
const PROXY_HOST = 'us-ny';

/** What the story needs of the demo run. */
export interface ProxyStoryInput {
  readonly target: DemoTarget;
  readonly tf: Terraform;
  readonly progress: Progress;
  readonly processes: ProcessGroup;
  /** The demo's environment (ROSTER_FILE; PROXYACCOUNT_* are kept from the app, as the demo does). */
  readonly env: NodeJS.ProcessEnv;
  /** The demo's options: where cdktf.json is, which roster. */
  readonly options: { readonly projectDir?: string; readonly roster?: string };
  /** The work dir: the app was synthesized into its `cdktf.out`; the changed roster goes here. */
  readonly work: { readonly root: string; path(name: string): string };
  /** Applies a saved plan as the demo does, printing its lines. */
  readonly apply: (planFile: string) => Promise<void>;
  readonly signal: AbortSignal;
}

interface TokenOutput {
  readonly username: string;
  readonly label: string;
  readonly value: string;
}

/** Runs the story; prints why it is skipped on a real account (its proxies are not ours to test). */
export async function proxyStory(input: ProxyStoryInput): Promise<void> {
  const { target, progress } = input;
  const proxies = target.proxies;
  if (target.kind !== 'emulator' || proxies === undefined) {
    progress.line('through the proxies: skipped (only the embedded emulator serves proxies the demo may test)');
    return;
  }
  progress.line('');
  progress.line('What the configuration decides, at the proxy servers:');
  await target.client.proxies.add(PROXY_HOST, { signal: input.signal });
  const listed = await target.client.proxies.list({ signal: input.signal });
  progress.line(`the parent authorizes ${PROXY_HOST} (the roster does not manage proxies): proxies.list() = ${listed.join(', ')}`);
  const tokens = await tokenOutputs(input.tf);
  const first = tokens[0];
  if (first === undefined) {
    progress.line('through the proxies: skipped (the roster declares no token to send requests with)');
    return;
  }
  const site = await startSite();
  try {
    const send = async (token: TokenOutput): Promise<string> => {
      const dispatcher = proxyDispatcher({ proxies: listed, token: token.value, use: PROXY_HOST, connectTo: (p) => proxies.addresses[p.split('.')[0]!] ?? p });
      try {
        const res = await request(site.url, { dispatcher, signal: input.signal });
        const body = await res.body.text();
        const exit = res.headers[proxies.exitIpHeader.toLowerCase()];
        return res.statusCode === 200 ? `200, "${body}" from exit IP ${String(exit)}` : `${res.statusCode} (refused by the proxy: ${body.trim()})`;
      } catch (err) {
        // undici reports a refused request as an error naming the proxy's status.
        const status = /\((\d{3})\)/.exec(err instanceof Error ? err.message : '')?.[1];
        if (status === undefined) throw err;
        return `${status} (refused by the proxy)`;
      } finally {
        await dispatcher.close();
      }
    };
    const who = (t: TokenOutput): string => `${t.username}'s token "${t.label}"`;
    progress.line(`GET ${site.url} via ${PROXY_HOST} with ${who(first)}: ${await send(first)}`);

    const limited = await overLimitCandidate(input, tokens, first);
    if (limited !== undefined) {
      await proxies.recordUsage(limited.token.username, limited.limit);
      progress.line(`${limited.token.username} reaches its monthly limit of ${limited.limit} GB (usage recorded through the emulator's control API)`);
      progress.line(`GET ${site.url} via ${PROXY_HOST} with ${who(limited.token)}: ${await send(limited.token)}`);
    }

    const projectDir = input.options.projectDir ?? path.resolve(__dirname, '..', '..', '..');
    const roster = input.options.roster ?? (input.env.ROSTER_FILE || undefined);
    const source = roster === undefined ? path.join(projectDir, 'examples', 'cdktf-roster', 'roster.yaml') : path.resolve(roster);
    const changed = withoutToken(source, input.work.path('roster-without-token.json'), first);
    progress.line(`the roster drops ${who(first)}: ${changed}`);
    const outDir = input.work.path('cdktf.out');
    progress.command([`CDKTF_OUTDIR=${outDir}`, `ROSTER_FILE=${changed}`, readAppCommand(projectDir).app]);
    const appEnv = Object.fromEntries(Object.entries(input.env).filter(([k]) => !k.startsWith('PROXYACCOUNT_')));
    await synthesize({ projectDir, outDir, rosterFile: changed, env: appEnv, processes: input.processes });
    progress.command(['terraform plan -out=remove-token.tfplan']);
    const plan = await input.tf.run(['plan', '-input=false', '-no-color', '-out=remove-token.tfplan']);
    const summary = /Plan: [^\n]*/.exec(plan.stdout);
    if (summary) progress.line(summary[0]);
    progress.command(['terraform apply remove-token.tfplan']);
    await input.apply('remove-token.tfplan');
    progress.line(`GET ${site.url} via ${PROXY_HOST} with ${who(first)}: ${await send(first)}`);
  } finally {
    await site.close();
  }
}

/** The stack's token outputs with their values (`terraform output -json` shows sensitive values). */
async function tokenOutputs(tf: Terraform): Promise<TokenOutput[]> {
  const run = await tf.run(['output', '-json', '-no-color']);
  const outputs = JSON.parse(run.stdout) as Record<string, { value?: unknown }>;
  const index = outputs['token_outputs']?.value;
  if (typeof index !== 'object' || index === null) return [];
  const found: TokenOutput[] = [];
  for (const [name, owner] of Object.entries(index as Record<string, unknown>)) {
    const value = outputs[name]?.value;
    if (typeof owner !== 'string' || typeof value !== 'string' || !owner.includes('/')) continue;
    const [username, label] = owner.split('/') as [string, string];
    found.push({ username, label, value });
  }
  return found;
}

/** A token of another sub-account that has a monthly limit, with that limit. */
async function overLimitCandidate(
  input: ProxyStoryInput,
  tokens: readonly TokenOutput[],
  not: TokenOutput,
): Promise<{ token: TokenOutput; limit: number } | undefined> {
  for (const token of tokens) {
    if (token.username === not.username) continue;
    const sub = await input.target.client.subAccounts.get(token.username, { signal: input.signal });
    if (sub.active && sub.monthlyBandwidthLimit > 0) return { token, limit: sub.monthlyBandwidthLimit };
  }
  return undefined;
}

/** Writes the roster `source` without `token` to `out` (as JSON, which the app reads too); returns `out`. */
function withoutToken(source: string, out: string, token: TokenOutput): string {
  const text = readFileSync(source, 'utf8');
  const roster = (/\.ya?ml$/i.test(source) ? parseYaml(text) : JSON.parse(text)) as {
    teams?: Array<{ members?: Array<{ username?: string; tokens?: Array<{ label?: string }> }> }>;
  };
  let removed = false;
  for (const team of roster.teams ?? []) {
    for (const member of team.members ?? []) {
      if (member.username !== token.username || member.tokens === undefined) continue;
      const kept = member.tokens.filter((t) => t.label !== token.label);
      removed ||= kept.length !== member.tokens.length;
      member.tokens = kept;
    }
  }
  if (!removed) throw new Error(`${source} declares ${token.username}/${token.label} in a way the demo cannot remove (not in the member's own tokens)`);
  writeFileSync(out, `${JSON.stringify(roster, null, 2)}\n`);
  return out;
}

/** A loopback web site for the requests to reach. */
async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => res.end('hello from the target site'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
