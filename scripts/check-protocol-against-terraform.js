#!/usr/bin/env node
'use strict';
// Compares our .proto files with the protocol compiled into a terraform binary. Go programs embed
// each .proto file's descriptor (a serialized FileDescriptorProto); we find it by its file name,
// decode it, and check every message, field (name, number, type, label), enum value and RPC.
//
//   node scripts/check-protocol-against-terraform.js [path/to/terraform]

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const protobuf = require('protobufjs');

/** Our file, and the name under which terraform embeds the same protocol. */
const PAIRS = [
  { ours: 'tfplugin6.proto', theirs: 'tfplugin6.proto' },
  { ours: 'grpc_controller.proto', theirs: 'internal/plugin/grpc_controller.proto' },
];

function findTerraform(explicit) {
  if (explicit) return explicit;
  const which = execFileSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).trim();
  if (!which) throw new Error('terraform is not on PATH');
  return fs.realpathSync(which);
}

function varint(buf, at) {
  let value = 0;
  let scale = 1;
  for (;;) {
    const b = buf[at++];
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, at];
    scale *= 128;
  }
}

/** Finds and cuts out the embedded FileDescriptorProto whose `name` (field 1) is `fileName`. */
function extractDescriptor(binary, fileName) {
  const name = Buffer.from(fileName);
  const marker = Buffer.concat([Buffer.from([0x0a, name.length]), name, Buffer.from([0x12])]);
  const start = binary.indexOf(marker);
  if (start < 0) throw new Error(`no embedded descriptor named ${fileName}`);
  // Walk top-level fields in ascending order; the descriptor ends at field 12 (syntax) or where
  // something stops looking like the next field.
  let at = start;
  let last = 0;
  for (;;) {
    const [key, next] = varint(binary, at);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (field < last || field < 1 || field > 14 || (wire !== 0 && wire !== 2)) break;
    let end = next;
    if (wire === 0) end = varint(binary, next)[1];
    else {
      const [len, body] = varint(binary, next);
      end = body + len;
    }
    at = end;
    last = field;
    if (field === 12) break;
  }
  return binary.subarray(start, at);
}

function describeField(f) {
  f.resolve();
  const type = f.resolvedType ? f.resolvedType.fullName : f.type;
  const key = f.map ? `map<${f.keyType},` : '';
  const optional = f.options?.proto3_optional ? 'optional ' : '';
  return `${optional}${f.repeated ? 'repeated ' : ''}${key}${type}${f.map ? '>' : ''} = ${f.id}`;
}

/** Flattens a root into "path → description" lines for comparison. */
function flatten(root) {
  const out = new Map();
  const walk = (ns) => {
    for (const n of ns.nestedArray) {
      if (n instanceof protobuf.Type) {
        out.set(`message ${n.fullName}`, '');
        for (const f of n.fieldsArray) out.set(`field ${n.fullName}.${f.name}`, describeField(f));
      } else if (n instanceof protobuf.Enum) {
        for (const [k, v] of Object.entries(n.values)) out.set(`enum ${n.fullName}.${k}`, String(v));
      } else if (n instanceof protobuf.Service) {
        for (const m of n.methodsArray) {
          m.resolve();
          out.set(
            `rpc ${n.fullName}.${m.name}`,
            `${m.requestStream ? 'stream ' : ''}${m.resolvedRequestType.fullName} -> ${m.responseStream ? 'stream ' : ''}${m.resolvedResponseType.fullName}`,
          );
        }
      }
      if (n.nestedArray && !(n.fullName || '').startsWith('.google')) walk(n);
    }
  };
  walk(root);
  return out;
}

/** Flattens a FileDescriptorProto (as decoded by protobufjs) into the same lines as flatten(). */
function flattenDescriptor(fdp) {
  const out = new Map();
  const mapEntries = new Map();
  const scalar = (t) => t.replace(/^TYPE_/, '').toLowerCase();
  const typeOf = (f) => (f.type === 'TYPE_MESSAGE' || f.type === 'TYPE_ENUM' ? f.typeName : scalar(f.type));
  const index = (msgs, prefix) => {
    for (const m of msgs || []) {
      const full = `${prefix}.${m.name}`;
      if (m.options?.mapEntry) mapEntries.set(full, m);
      index(m.nestedType, full);
    }
  };
  const pkg = `.${fdp.package}`;
  index(fdp.messageType, pkg);
  const enums = (list, prefix) => {
    for (const e of list || []) for (const v of e.value) out.set(`enum ${prefix}.${e.name}.${v.name}`, String(v.number || 0));
  };
  const walk = (msgs, prefix) => {
    for (const m of msgs || []) {
      const full = `${prefix}.${m.name}`;
      if (mapEntries.has(full)) continue;
      out.set(`message ${full}`, '');
      for (const f of m.field || []) {
        const entry = f.type === 'TYPE_MESSAGE' ? mapEntries.get(f.typeName) : undefined;
        let desc;
        if (entry) {
          const [k, v] = entry.field;
          desc = `map<${typeOf(k)},${typeOf(v)}> = ${f.number}`;
        } else {
          desc = `${f.proto3Optional ? 'optional ' : ''}${f.label === 'LABEL_REPEATED' ? 'repeated ' : ''}${typeOf(f)} = ${f.number}`;
        }
        out.set(`field ${full}.${f.name}`, desc);
      }
      enums(m.enumType, full);
      walk(m.nestedType, full);
    }
  };
  walk(fdp.messageType, pkg);
  enums(fdp.enumType, pkg);
  for (const svc of fdp.service || []) {
    for (const m of svc.method || []) {
      out.set(
        `rpc ${pkg}.${svc.name}.${m.name}`,
        `${m.clientStreaming ? 'stream ' : ''}${m.inputType} -> ${m.serverStreaming ? 'stream ' : ''}${m.outputType}`,
      );
    }
  }
  return out;
}

function loadTheirs(binary, fileName) {
  const FileDescriptorProto = protobuf.Root.fromJSON(require('protobufjs/google/protobuf/descriptor.json')).lookupType('google.protobuf.FileDescriptorProto');
  const fdp = FileDescriptorProto.toObject(FileDescriptorProto.decode(extractDescriptor(binary, fileName)), {
    enums: String,
  });
  return flattenDescriptor(fdp);
}

/**
 * Returns a list of differences (empty when the protocols match).
 * @param terraformPath the binary; default: terraform on PATH
 * @param protoDir where our .proto files are; default: src/protocol/proto
 */
function compare(terraformPath, protoDir = path.join(__dirname, '../src/protocol/proto')) {
  const binary = fs.readFileSync(findTerraform(terraformPath));
  const problems = [];
  for (const pair of PAIRS) {
    const ours = new protobuf.Root();
    ours.resolvePath = (_o, t) => (t.startsWith('google/protobuf/') ? t : path.join(protoDir, t));
    ours.loadSync(pair.ours, { keepCase: true });
    ours.resolveAll();
    const a = flatten(ours);
    const b = loadTheirs(binary, pair.theirs);
    for (const [k, v] of b) {
      if (!a.has(k)) problems.push(`${pair.ours}: missing ${k} (${v})`);
      else if (a.get(k) !== v) problems.push(`${pair.ours}: ${k} is "${a.get(k)}", terraform has "${v}"`);
    }
    for (const k of a.keys()) if (!b.has(k)) problems.push(`${pair.ours}: ${k} is not in terraform's protocol`);
  }
  return problems;
}

if (require.main === module) {
  const problems = compare(process.argv[2]);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write('our .proto files match the protocol compiled into terraform\n');
}

module.exports = { compare, extractDescriptor };
