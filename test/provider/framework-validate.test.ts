// ValidateResourceConfig / ValidateDataResourceConfig through the FrameworkServer: validators on
// the right attribute paths, unknown values skipped, write-only support, deprecation warnings,
// and required attributes set to null, and null elements of collections, refused in every kind
// of configuration.
import { CtyBigNumber, type CtyType, UNKNOWN } from '../../src/protocol/cty';
import {
  attr,
  defineSchema,
  eachElement,
  FrameworkServer,
  lengthBetween,
  type DataSourceDefinition,
  type EphemeralResourceDefinition,
} from '../../src/provider/framework';
import { lookupSchema, widgetSchema, WidgetStore, widgetServer } from './fixtures';
import { dv, errors, obj, paths, TF110, TF111 } from './harness';

async function validate(values: Parameters<typeof obj>[1], caps = TF111) {
  const server = await widgetServer(new WidgetStore(), { configure: false });
  const res = await server.validateResourceConfig({ typeName: 'test_widget', config: dv(widgetSchema, obj(widgetSchema, values)), clientCapabilities: caps });
  return res.diagnostics;
}

describe('ValidateResourceConfig', () => {
  it('accepts a valid configuration', async () => {
    expect(await validate({ name: 'ok', size: 3, tags: ['a'], entries: [{ ip: '10.0.0.1', label: 'x' }] })).toEqual([]);
  });

  it('puts each problem on its attribute path, one diagnostic per problem', async () => {
    const diags = await validate({
      name: 'toolong',
      size: 1.5,
      entries: [
        { ip: '10.0.0.1', label: null },
        { ip: '10.0.0.300', label: null },
      ],
    });
    expect(errors(diags)).toHaveLength(3);
    expect(paths(diags).sort()).toEqual(['entries.[1].ip', 'name', 'size']);
    const nameDiag = diags.find((d) => paths([d])[0] === 'name')!;
    expect(nameDiag.summary).toBe('Invalid attribute value');
    expect(nameDiag.detail).toMatch(/at most 5 characters/);
  });

  it('refuses a number the resource could not store exactly (it would come back rounded: an inconsistent result)', async () => {
    const diags = await validate({ name: 'ok', size: CtyBigNumber.parse('12345678901234567890') });
    expect(errors(diags)).toEqual([
      expect.objectContaining({
        summary: 'Invalid attribute value',
        detail: expect.stringMatching(/size must be a number a 64-bit float holds exactly.*got 12345678901234567890\./),
      }),
    ]);
    expect(paths(diags)).toEqual(['size']);
    // Numbers a double holds exactly are fine, however large (2^53 and 1e20 arrive as big numbers).
    expect(await validate({ name: 'ok', size: 2 ** 53 - 1 })).toEqual([]);
    expect(await validate({ name: 'ok', size: CtyBigNumber.parse('9007199254740992') })).toEqual([]);
    expect(await validate({ name: 'ok', size: CtyBigNumber.parse('100000000000000000000') })).toEqual([]);
    expect(paths(errors(await validate({ name: 'ok', size: CtyBigNumber.parse('0.1') })))).toEqual(['size']);
  });

  it('puts a value that does not fit the schema on its attribute, as a schema mismatch rather than a plain bug', async () => {
    const type = widgetSchema.type as { kind: 'object'; attributes: Record<string, CtyType> };
    // As Terraform would send it had it a schema where `size` is a string.
    const mismatched: CtyType = { ...type, attributes: { ...type.attributes, size: { kind: 'string' } } };
    const server = await widgetServer(new WidgetStore(), { configure: false });
    const config = { ...obj(widgetSchema, { name: 'ok' }), size: 'big' };
    const res = await server.validateResourceConfig({ typeName: 'test_widget', config: dv(mismatched, config), clientCapabilities: TF111 });
    expect(errors(res.diagnostics)).toEqual([
      expect.objectContaining({ summary: 'Invalid value from Terraform', detail: expect.stringMatching(/at size: .*run it again/) }),
    ]);
    expect(paths(res.diagnostics)).toEqual(['size']);
  });

  it('keeps set-element problems on the set itself (Terraform cannot address set elements)', async () => {
    const diags = await validate({ name: 'ok', tags: ['good', 'ok'] });
    expect(paths(errors(diags))).toEqual(['tags']);
  });

  it('skips unknown values, including unknown elements of a list', async () => {
    expect(await validate({ name: UNKNOWN, size: UNKNOWN, tags: UNKNOWN, entries: [{ ip: UNKNOWN, label: null }] })).toEqual([]);
    // A known element next to an unknown one is still checked.
    const diags = await validate({
      name: 'ok',
      entries: [
        { ip: UNKNOWN, label: null },
        { ip: 'nope', label: null },
      ],
    });
    expect(paths(errors(diags))).toEqual(['entries.[1].ip']);
  });

  it('reports conflicting attributes on the attribute that declares the conflict', async () => {
    const diags = await validate({ name: 'ok', note: 'n', secret_wo: 's' });
    expect(errors(diags).map((d) => d.summary)).toEqual(['Conflicting attributes']);
    expect(paths(diags)).toEqual(['note']);
    // An unknown partner may still be null: no conflict yet.
    expect(await validate({ name: 'ok', note: 'n', secret_wo: UNKNOWN })).toEqual([]);
  });

  it('refuses write-only attributes when Terraform does not support them', async () => {
    expect(await validate({ name: 'ok', secret_wo: 's' }, TF111)).toEqual([]);
    const diags = await validate({ name: 'ok', secret_wo: 's' }, TF110);
    expect(errors(diags)).toHaveLength(1);
    expect(diags[0]).toMatchObject({ summary: 'Write-only attribute not supported', attribute: [{ attributeName: 'secret_wo' }] });
    expect(diags[0]!.detail).toMatch(/1\.11/);
  });

  it('echoes an offending value, unless the attribute is sensitive', async () => {
    const plain = await validate({ name: 'ok', note: 'NOTE' });
    expect(paths(errors(plain))).toEqual(['note']);
    expect(plain[0]!.detail).toContain('"NOTE"');
    const secret = await validate({ name: 'ok', secret_wo: 'TOPSECRET' });
    expect(paths(errors(secret))).toEqual(['secret_wo']);
    expect(JSON.stringify(secret)).not.toContain('TOPSECRET');
  });

  it('warns about deprecated attributes that are set', async () => {
    const diags = await validate({ name: 'ok', legacy: 'x' });
    expect(diags).toEqual([expect.objectContaining({ severity: 'warning', summary: 'Deprecated attribute', attribute: [{ attributeName: 'legacy' }] })]);
  });

  it('answers an unknown type name with a diagnostic, not an exception', async () => {
    const server = await widgetServer(new WidgetStore(), { configure: false });
    const res = await server.validateResourceConfig({ typeName: 'test_nope', config: dv(widgetSchema, obj(widgetSchema, {})) });
    expect(res.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'Unknown resource type' })]);
  });

  it('turns an undecodable value into a diagnostic', async () => {
    const server = await widgetServer(new WidgetStore(), { configure: false });
    const res = await server.validateResourceConfig({ typeName: 'test_widget', config: { msgpack: new Uint8Array([0xc1]) } });
    expect(errors(res.diagnostics)).toHaveLength(1);
  });
});

describe('ValidateDataResourceConfig', () => {
  it('runs the data source validators', async () => {
    const server = await widgetServer(new WidgetStore(), { configure: false });
    const res = await server.validateDataResourceConfig({ typeName: 'test_lookup', config: dv(lookupSchema, obj(lookupSchema, { key: 'long' })) });
    expect(paths(errors(res.diagnostics))).toEqual(['key']);
  });
});

describe('a required attribute set to null', () => {
  // Terraform refuses a required argument left out, but passes one set to null (`label = var.x`
  // with a null variable); the framework refuses it, on the attribute, before any code runs.
  const nullRequired = (name: string) =>
    expect.objectContaining({
      severity: 'error',
      summary: 'Missing required argument',
      detail: `Attribute ${name} is required, but its value is null (for example a variable that is null); set it to a value.`,
    });

  const ticketSchema = defineSchema({
    description: 'A test ticket.',
    attributes: {
      purpose: attr.string({ description: 'Purpose.', required: true }),
      value: attr.string({ description: 'Value.', computed: true }),
    },
  });
  const providerSchema = defineSchema({
    description: 'Test provider.',
    attributes: { region: attr.string({ description: 'Region.', required: true }), flag: attr.bool({ description: 'Flag.', optional: true }) },
  });
  const ticket = {
    typeName: 'test_ticket',
    displayName: 'ticket',
    schema: ticketSchema,
    async open(_ctx, { config }) {
      return { result: { purpose: config.purpose, value: `ticket-for-${config.purpose}` } };
    },
  } satisfies EphemeralResourceDefinition<typeof ticketSchema>;
  const ticketServer = new FrameworkServer({
    typeName: 'test',
    schema: providerSchema,
    configure: async () => ({}),
    resources: [],
    dataSources: [],
    ephemeralResources: [ticket],
  });

  it('is refused in a resource, on the attribute, and in a nested object on its element', async () => {
    const diags = await validate({ name: null });
    expect(errors(diags)).toEqual([nullRequired('name')]);
    expect(paths(diags)).toEqual(['name']);
    const nested = await validate({
      name: 'ok',
      entries: [
        { ip: '10.0.0.1', label: null },
        { ip: null, label: 'x' },
      ],
    });
    expect(errors(nested)).toEqual([nullRequired('entries[1].ip')]);
    expect(paths(nested)).toEqual(['entries.[1].ip']);
  });

  it('is refused in a data source', async () => {
    const server = await widgetServer(new WidgetStore(), { configure: false });
    const res = await server.validateDataResourceConfig({ typeName: 'test_lookup', config: dv(lookupSchema, obj(lookupSchema, { key: null })) });
    expect(errors(res.diagnostics)).toEqual([nullRequired('key')]);
    expect(paths(res.diagnostics)).toEqual(['key']);
  });

  it('is refused in an ephemeral resource', async () => {
    const res = await ticketServer.validateEphemeralResourceConfig({ typeName: 'test_ticket', config: dv(ticketSchema, obj(ticketSchema, { purpose: null })) });
    expect(errors(res.diagnostics)).toEqual([nullRequired('purpose')]);
    expect(paths(res.diagnostics)).toEqual(['purpose']);
    const ok = await ticketServer.validateEphemeralResourceConfig({ typeName: 'test_ticket', config: dv(ticketSchema, obj(ticketSchema, { purpose: 'ci' })) });
    expect(ok.diagnostics).toEqual([]);
  });

  it('is refused in the provider block', async () => {
    const res = await ticketServer.validateProviderConfig({ config: dv(providerSchema, obj(providerSchema, { region: null })) });
    expect(errors(res.diagnostics)).toEqual([nullRequired('region')]);
    expect(paths(res.diagnostics)).toEqual(['region']);
    expect((await ticketServer.validateProviderConfig({ config: dv(providerSchema, obj(providerSchema, { region: 'eu' })) })).diagnostics).toEqual([]);
  });

  it('is not refused while unknown (Terraform validates again once it is known)', async () => {
    expect(await validate({ name: UNKNOWN, entries: [{ ip: UNKNOWN, label: null }] })).toEqual([]);
    const res = await ticketServer.validateEphemeralResourceConfig({
      typeName: 'test_ticket',
      config: dv(ticketSchema, obj(ticketSchema, { purpose: UNKNOWN })),
    });
    expect(res.diagnostics).toEqual([]);
  });
});

describe('a null element of a collection', () => {
  // `domains = ["a.example.org", var.n]`, `entries = [for ... : cond ? {...} : null]`: Terraform
  // passes the null element on; the framework refuses it, naming the element, before any code
  // (or any validator, which is promised no nulls) sees it.
  const nullElement = (what: string) =>
    expect.objectContaining({
      severity: 'error',
      summary: 'Null element',
      detail: `${what} is null (for example a variable that is null, or a conditional that gives null); remove it or set it to a value.`,
    });

  const bagSchema = defineSchema({
    description: 'A test bag of collections.',
    attributes: {
      hosts: attr.list('string', { description: 'Hosts.', optional: true, validators: [eachElement(lengthBetween(1, 3))] }),
      labels: attr.map('string', { description: 'Labels.', optional: true }),
      secrets: attr.map('string', { description: 'Secrets.', optional: true, sensitive: true }),
      rules: attr.setNested({ port: attr.number({ description: 'Port.', required: true }) }, { description: 'Rules.', required: true }),
      value: attr.string({ description: 'Value.', computed: true }),
    },
  });
  const bag = {
    typeName: 'test_bag',
    displayName: 'bag',
    schema: bagSchema,
    async read() {
      return { hosts: null, labels: null, secrets: null, rules: [], value: 'v' };
    },
  } satisfies DataSourceDefinition<typeof bagSchema>;
  const zonesSchema = defineSchema({ description: 'Test provider.', attributes: { zones: attr.set('string', { description: 'Zones.', optional: true }) } });
  const bagServer = new FrameworkServer({
    typeName: 'test',
    schema: zonesSchema,
    configure: async () => ({}),
    resources: [],
    dataSources: [bag],
  });
  const validateBag = async (values: Parameters<typeof obj>[1]) =>
    (await bagServer.validateDataResourceConfig({ typeName: 'test_bag', config: dv(bagSchema, obj(bagSchema, { rules: [], ...values })) })).diagnostics;

  it('is refused in a set, on the set (a set element has no address, and a set holds one null at most)', async () => {
    const diags = await validate({ name: 'ok', tags: ['a', null] });
    expect(errors(diags)).toEqual([nullElement('An element of tags')]);
    expect(paths(diags)).toEqual(['tags']);
  });

  it('is refused in a list, on the element, counted from 1 and indexed as Terraform does', async () => {
    const diags = await validateBag({ hosts: ['a', null, 'b', null] });
    expect(errors(diags)).toEqual([nullElement('Element 2 of hosts (hosts[1])'), nullElement('Element 4 of hosts (hosts[3])')]);
    expect(paths(diags)).toEqual(['hosts.[1]', 'hosts.[3]']);
  });

  it('is refused in a map, on the element by its key, unless the map is sensitive (then no key is named)', async () => {
    const diags = await validateBag({ labels: { team: 'ci', owner: null } });
    expect(errors(diags)).toEqual([nullElement('Element "owner" of labels')]);
    expect(paths(diags)).toEqual(['labels.[owner]']);
    const secret = await validateBag({ secrets: { 'key-TOPSECRET': null, other: null } });
    expect(errors(secret)).toEqual([nullElement('An element of secrets')]);
    expect(paths(secret)).toEqual(['secrets']);
    expect(JSON.stringify(secret)).not.toContain('TOPSECRET');
  });

  it('is refused as a null object in a nested list or set, while the other objects are still checked', async () => {
    const diags = await validate({ name: 'ok', entries: [{ ip: '10.0.0.1', label: null }, null, { ip: 'nope', label: null }] });
    expect(errors(diags)).toEqual([nullElement('Element 2 of entries (entries[1])'), expect.objectContaining({ summary: 'Invalid attribute value' })]);
    expect(paths(diags)).toEqual(['entries.[1]', 'entries.[2].ip']);
    const set = await validateBag({ rules: [{ port: 80 }, null] });
    expect(errors(set)).toEqual([nullElement('An element of rules')]);
    expect(paths(set)).toEqual(['rules']);
  });

  it("keeps the attribute's own validators from seeing a collection with a null", async () => {
    // "long" breaks the element rule, which is told once the null is gone: validators are
    // promised collections without nulls (a hand-written one need not think of them).
    const diags = await validateBag({ hosts: ['long', null] });
    expect(errors(diags)).toEqual([nullElement('Element 2 of hosts (hosts[1])')]);
  });

  it('is refused in the provider block', async () => {
    const res = await bagServer.validateProviderConfig({ config: dv(zonesSchema, { zones: ['eu', null] }) });
    expect(errors(res.diagnostics)).toEqual([nullElement('An element of zones')]);
  });

  it('is not refused while unknown (Terraform validates again once it is known), but a known null beside an unknown is', async () => {
    expect(await validate({ name: 'ok', tags: ['a', UNKNOWN], entries: [{ ip: '10.0.0.1', label: null }, UNKNOWN] })).toEqual([]);
    expect(await validateBag({ hosts: [UNKNOWN, 'a'], labels: { team: UNKNOWN }, rules: [UNKNOWN] })).toEqual([]);
    const diags = await validateBag({ hosts: [UNKNOWN, null] });
    expect(errors(diags)).toEqual([nullElement('Element 2 of hosts (hosts[1])')]);
  });
});
