// Where a plan comes from for review and drift: plan JSON in a file or on standard input, or a
// saved binary plan that `terraform show -json` turns into JSON in the plan's working directory.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describeFailure, jsonFault, Terraform } from './terraform';

/** Reads standard input to the end. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The plan as JSON: `-` reads JSON from standard input; a file holding JSON is read as it is;
 * anything else is taken for a saved plan and shown with terraform in `dir` (default: the
 * plan file's directory, where its `.terraform` is).
 */
export async function loadPlan(source: string, opts: { dir?: string; terraform?: string } = {}): Promise<unknown> {
  if (source === '-') return parseJson(await readStdin(), 'standard input');
  let bytes: Buffer;
  try {
    bytes = readFileSync(source);
  } catch (err) {
    throw new Error(`cannot read the plan ${source}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const text = bytes.toString('utf8').trimStart();
  if (text.startsWith('{')) return parseJson(text, source);
  const dir = opts.dir ?? path.dirname(path.resolve(source));
  const tf = new Terraform({ bin: opts.terraform, cwd: dir });
  return tf.showPlan(path.resolve(source)).catch((err: unknown) => {
    throw describeFailure(err, dir);
  });
}

/** Plan JSON holds secrets: a parse error says where the text stops parsing, never what it holds there. */
function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${where} is not plan JSON (${jsonFault(err, text)}); give a saved plan file or the output of \`terraform show -json PLANFILE\``);
  }
}
