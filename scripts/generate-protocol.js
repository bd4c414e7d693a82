#!/usr/bin/env node
'use strict';
// Generates src/protocol/gen/*.ts (typed protobuf encoders/decoders and gRPC method tables) from
// src/protocol/proto/*.proto. protobufjs parses the .proto files here, at build time only; the
// output depends on nothing but src/protocol/wire.ts, so the provider never parses .proto text
// and never loads a protobuf library when it starts.
//
//   node scripts/generate-protocol.js          write the files
//   node scripts/generate-protocol.js --check  exit 1 if the files on disk are stale

const fs = require('node:fs');
const path = require('node:path');
const protobuf = require('protobufjs');

const ROOT = path.resolve(__dirname, '..');
const PROTO_DIR = path.join(ROOT, 'src/protocol/proto');
const OUT_DIR = path.join(ROOT, 'src/protocol/gen');
const SCRIPT = 'scripts/generate-protocol.js';

/** The .proto files and the TS module generated from each. */
const FILES = [
  { proto: 'tfplugin6.proto', out: 'tfplugin6.ts' },
  { proto: 'grpc_controller.proto', out: 'grpc_controller.ts' },
];

/** Names that would shadow a global TypeScript/JS binding in the generated module. */
const GLOBALS = new Set(['Function', 'Object', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'Date', 'Error', 'Map', 'Set', 'Promise']);

const SCALARS = {
  // proto type: [TS type, default, wire type, writer call, reader call, packable]
  string: ['string', "''", 2, (v) => `string(${v})`, 'string()', false],
  bytes: ['Uint8Array', 'EMPTY_BYTES', 2, (v) => `bytes(${v})`, 'bytes()', false],
  bool: ['boolean', 'false', 0, (v) => `bool(${v})`, 'bool()', true],
  int64: ['number', '0', 0, (v) => `int64(${v})`, 'int64()', true],
  uint64: ['number', '0', 0, (v) => `int64(${v})`, 'uint64()', true],
  int32: ['number', '0', 0, (v) => `int32(${v})`, 'int32()', true],
  uint32: ['number', '0', 0, (v) => `uint32(${v})`, 'uint32()', true],
  sint32: ['number', '0', 0, (v) => `sint(${v})`, 'sint()', true],
  sint64: ['number', '0', 0, (v) => `sint(${v})`, 'sint()', true],
  double: ['number', '0', 1, (v) => `double(${v})`, 'double()', true],
  float: ['number', '0', 5, (v) => `float(${v})`, 'float()', true],
  fixed32: ['number', '0', 5, (v) => `fixed32(${v}, false)`, 'fixed32(false)', true],
  sfixed32: ['number', '0', 5, (v) => `fixed32(${v}, true)`, 'fixed32(true)', true],
  fixed64: ['number', '0', 1, (v) => `fixed64(${v})`, 'fixed64(false)', true],
  sfixed64: ['number', '0', 1, (v) => `fixed64(${v})`, 'fixed64(true)', true],
};

function loadRoot(protoFile) {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : path.join(PROTO_DIR, target));
  root.loadSync(protoFile, { keepCase: false });
  root.resolveAll();
  return root;
}

function collect(ns, out) {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) out.types.push(nested);
    else if (nested instanceof protobuf.Enum) out.enums.push(nested);
    else if (nested instanceof protobuf.Service) out.services.push(nested);
    if (nested.nestedArray) collect(nested, out);
  }
  return out;
}

/** TS identifier of a message or enum: its name relative to its package, joined by '_'. */
function makeNamer(all) {
  const names = new Map();
  const used = new Map();
  for (const t of all) {
    const parts = [];
    for (let n = t; n && !(n instanceof protobuf.Root); n = n.parent) {
      if (n instanceof protobuf.Namespace && !(n instanceof protobuf.Type) && !(n instanceof protobuf.Enum)) break;
      parts.unshift(n.name);
    }
    let name = parts.join('_');
    if (GLOBALS.has(name)) name += '_';
    if (used.has(name)) throw new Error(`name clash: ${t.fullName} and ${used.get(name)} both map to ${name}`);
    used.set(name, t.fullName);
    names.set(t.fullName, name);
  }
  return (t) => {
    const n = names.get(t.fullName);
    if (!n) throw new Error(`no generated name for ${t.fullName}`);
    return n;
  };
}

const doc = (indent, text) => `${indent}/** ${text} */\n`;

function fieldInfo(f, nameOf) {
  const optional = !!f.options?.proto3_optional;
  const oneof = !optional && f.partOf ? f.partOf.name : undefined;
  if (f.map) {
    if (f.keyType !== 'string') throw new Error(`${f.fullName}: only string map keys are supported`);
  }
  if (f.resolvedType instanceof protobuf.Type) {
    const n = nameOf(f.resolvedType);
    return { kind: 'message', ts: n, input: `${n}Input`, name: n, optional, oneof };
  }
  if (f.resolvedType instanceof protobuf.Enum) {
    return { kind: 'enum', ts: 'number', input: 'number', def: '0', wire: 0, w: (v) => `int32(${v})`, r: 'int32()', packable: true, optional, oneof };
  }
  const s = SCALARS[f.type];
  if (!s) throw new Error(`${f.fullName}: unsupported type ${f.type}`);
  return { kind: 'scalar', ts: s[0], input: s[0], def: s[1], wire: s[2], w: s[3], r: s[4], packable: s[5], optional, oneof };
}

function isDefault(info, v) {
  if (info.ts === 'string') return `${v} !== ''`;
  if (info.ts === 'Uint8Array') return `${v}.length > 0`;
  if (info.ts === 'boolean') return `${v}`;
  return `${v} !== 0`;
}

function genMessage(t, nameOf) {
  const name = nameOf(t);
  const fields = t.fieldsArray.slice().sort((a, b) => a.id - b.id);
  let iface = `${doc('', `${t.fullName.slice(1)} as decoded: scalars carry their proto3 defaults.`)}export interface ${name} {\n`;
  let input = `${doc('', `${t.fullName.slice(1)} to encode: every field may be omitted.`)}export interface ${name}Input {\n`;
  let write = `  write(m: ${name}Input, w: Writer): void {\n`;
  let init = '';
  let cases = '';
  for (const f of fields) {
    const info = fieldInfo(f, nameOf);
    const key = /^[A-Za-z_$][\w$]*$/.test(f.name) ? f.name : JSON.stringify(f.name);
    const acc = /^[A-Za-z_$][\w$]*$/.test(f.name) ? `m.${f.name}` : `m[${JSON.stringify(f.name)}]`;
    const tagLen = (wire) => `w.tag(${f.id}, ${wire})`;
    if (f.map) {
      const vInfo = info;
      const keyInfo = SCALARS.string;
      iface += `  ${key}: Record<string, ${vInfo.ts}>;\n`;
      input += `  ${key}?: Record<string, ${vInfo.input}>;\n`;
      const writeValue = vInfo.kind === 'message' ? `e.tag(2, 2).message((c) => ${vInfo.name}.write(v, c))` : `e.tag(2, ${vInfo.wire}).${vInfo.w('v')}`;
      write +=
        `    if (${acc}) for (const [k, v] of Object.entries(${acc})) {\n` +
        `      ${tagLen(2)}.message((e) => { e.tag(1, 2).${keyInfo[3]('k')}; ${writeValue}; });\n    }\n`;
      init += `      ${key}: {},\n`;
      const readValue = vInfo.kind === 'message' ? `${vInfo.name}.read(r, r.nested())` : `r.${vInfo.r}`;
      const defValue = vInfo.kind === 'message' ? `${vInfo.name}.read(r, r.pos)` : vInfo.def;
      cases +=
        `        case ${f.id}: {\n` +
        `          const entryEnd = r.nested();\n` +
        `          let k = '';\n          let v: ${vInfo.ts} | undefined;\n` +
        `          while (r.pos < entryEnd) {\n` +
        `            const t = r.varint();\n` +
        `            if (t === ${(1 << 3) | 2}) k = r.string();\n` +
        `            else if (t === ${(2 << 3) | (vInfo.kind === 'message' ? 2 : vInfo.wire)}) v = ${readValue};\n` +
        `            else r.skip(t & 7);\n` +
        `          }\n` +
        `          setEntry(m.${f.name}, k, v ?? ${defValue});\n` +
        `          break;\n        }\n`;
      continue;
    }
    if (f.repeated) {
      iface += `  ${key}: ${info.ts}[];\n`;
      input += `  ${key}?: ${info.input}[];\n`;
      init += `      ${key}: [],\n`;
      if (info.kind === 'message') {
        write += `    if (${acc}) for (const v of ${acc}) ${tagLen(2)}.message((c) => ${info.name}.write(v, c));\n`;
        cases += `        case ${f.id}: if (wt === 2) m.${f.name}.push(${info.name}.read(r, r.nested())); else r.skip(wt); break;\n`;
      } else if (info.packable) {
        write += `    if (${acc} && ${acc}.length > 0) ${tagLen(2)}.message((c) => { for (const v of ${acc}!) c.${info.w('v')}; });\n`;
        cases +=
          `        case ${f.id}:\n` +
          `          if (wt === 2) { const e = r.nested(); while (r.pos < e) m.${f.name}.push(r.${info.r}); }\n` +
          `          else if (wt === ${info.wire}) m.${f.name}.push(r.${info.r});\n` +
          `          else r.skip(wt);\n          break;\n`;
      } else {
        write += `    if (${acc}) for (const v of ${acc}) ${tagLen(info.wire)}.${info.w('v')};\n`;
        cases += `        case ${f.id}: if (wt === ${info.wire}) m.${f.name}.push(r.${info.r}); else r.skip(wt); break;\n`;
      }
      continue;
    }
    const presence = info.kind === 'message' || info.optional || info.oneof;
    const note = info.oneof ? ` // oneof ${info.oneof}` : '';
    iface += `  ${key}${presence ? '?' : ''}: ${info.ts};${note}\n`;
    input += `  ${key}?: ${info.input};${note}\n`;
    if (!presence) init += `      ${key}: ${info.def},\n`;
    if (info.kind === 'message') {
      write += `    if (${acc} != null) ${tagLen(2)}.message((c) => ${info.name}.write(${acc}!, c));\n`;
      cases += `        case ${f.id}: if (wt === 2) m.${f.name} = ${info.name}.read(r, r.nested()); else r.skip(wt); break;\n`;
    } else {
      const cond = presence ? `${acc} !== undefined` : `${acc} !== undefined && ${isDefault(info, acc)}`;
      write += `    if (${cond}) ${tagLen(info.wire)}.${info.w(`${acc}`)};\n`;
      cases += `        case ${f.id}: if (wt === ${info.wire}) m.${f.name} = r.${info.r}; else r.skip(wt); break;\n`;
    }
  }
  iface += '}\n';
  input += '}\n';
  write += '  },\n';
  const unused = fields.length === 0 ? '    void m;\n    void w;\n' : '';
  if (unused) write = write.replace('  },\n', `${unused}  },\n`);
  const read =
    `  read(r: Reader, end: number): ${name} {\n` +
    `    const m: ${name} = {\n${init}    };\n` +
    `    while (r.pos < end) {\n` +
    `      const tag = r.varint();\n` +
    `      const wt = tag & 7;\n` +
    (cases ? `      switch (tag >>> 3) {\n${cases}        default: r.skip(wt);\n      }\n` : `      r.skip(wt);\n`) +
    `    }\n` +
    `    return m;\n  },\n`;
  const obj =
    doc('', `Encoder/decoder of ${t.fullName.slice(1)}.`) +
    `export const ${name} = {\n` +
    write +
    read +
    `  /** Encodes a message to bytes. */\n` +
    `  encode(m: ${name}Input): Buffer {\n    const w = new Writer();\n    ${name}.write(m, w);\n    return w.finish();\n  },\n` +
    `  /** Decodes a message from bytes. */\n` +
    `  decode(buf: Uint8Array): ${name} {\n    return ${name}.read(new Reader(buf), buf.length);\n  },\n` +
    `};\n`;
  return `${iface}\n${input}\n${obj}`;
}

function genEnum(e, nameOf) {
  const name = nameOf(e);
  const entries = Object.entries(e.values)
    .map(([k, v]) => `  ${k}: ${v},\n`)
    .join('');
  return (
    doc('', `Values of the enum ${e.fullName.slice(1)} (decoded enums are plain numbers; unknown values pass through).`) +
    `export const ${name} = {\n${entries}} as const;\n`
  );
}

function genService(s, nameOf) {
  const name = `${s.name}Service`;
  const pkg = s.parent?.fullName ? s.parent.fullName.slice(1) : '';
  let table = `${doc('', `Methods of the gRPC service ${s.fullName.slice(1)}: paths and codecs.`)}export const ${name} = {\n`;
  let handlers = `${doc('', `One handler per unary method of ${s.fullName.slice(1)}: decoded request in, response to encode out.`)}export interface ${name}Handlers {\n`;
  for (const m of s.methodsArray) {
    m.resolve();
    const req = nameOf(m.resolvedRequestType);
    const res = nameOf(m.resolvedResponseType);
    table +=
      `  ${m.name}: {\n` +
      `    path: '/${pkg ? `${pkg}.` : ''}${s.name}/${m.name}',\n` +
      `    requestStream: ${!!m.requestStream},\n` +
      `    responseStream: ${!!m.responseStream},\n` +
      `    request: ${req},\n` +
      `    response: ${res},\n` +
      `  },\n`;
    if (!m.requestStream && !m.responseStream) {
      handlers += `  ${m.name}(request: ${req}): Promise<${res}Input>;\n`;
    }
  }
  table += '} as const;\n';
  handlers += '}\n';
  return `${table}\n${handlers}`;
}

function generate(file) {
  const root = loadRoot(file.proto);
  const found = collect(root, { types: [], enums: [], services: [] });
  // Map entry types are synthesised by protobufjs only as fields; nothing to emit for them.
  const nameOf = makeNamer([...found.types, ...found.enums]);
  const parts = [
    `// Generated by ${SCRIPT} from src/protocol/proto/${file.proto}. Do not edit; run the script.\n` +
      `/* eslint-disable */\n` +
      `import { Reader, Writer } from '../wire';\n\n` +
      `const EMPTY_BYTES: Uint8Array = new Uint8Array(0);\n\n` +
      `function setEntry<V>(target: Record<string, V>, key: string, value: V): void {\n` +
      `  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });\n` +
      `}\n` +
      `void EMPTY_BYTES;\nvoid setEntry;\n`,
  ];
  for (const e of found.enums) parts.push(genEnum(e, nameOf));
  for (const t of found.types) parts.push(genMessage(t, nameOf));
  for (const s of found.services) parts.push(genService(s, nameOf));
  return parts.join('\n');
}

function main() {
  const check = process.argv.includes('--check');
  let stale = 0;
  if (!check) fs.mkdirSync(OUT_DIR, { recursive: true });
  for (const file of FILES) {
    const text = generate(file);
    const out = path.join(OUT_DIR, file.out);
    const current = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : undefined;
    if (check) {
      if (current !== text) {
        process.stderr.write(`${path.relative(ROOT, out)} is stale: run node ${SCRIPT}\n`);
        stale++;
      }
    } else if (current !== text) {
      fs.writeFileSync(out, text);
      process.stdout.write(`wrote ${path.relative(ROOT, out)}\n`);
    }
  }
  if (stale > 0) process.exit(1);
}

if (require.main === module) main();

module.exports = { generate, loadRoot, FILES, PROTO_DIR };
