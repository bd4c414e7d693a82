// Each converter with its message going through the generated wire code, as on a real call.
import * as c from '../../src/protocol/convert';
import { Types, typeFromJson } from '../../src/protocol/cty';
import * as pb from '../../src/protocol/gen/tfplugin6';
import type { Diagnostic, Schema } from '../../src/protocol/types';

const mp = (...bytes: number[]): Buffer => Buffer.from(bytes);
const caps = { deferralAllowed: true, writeOnlyAttributesAllowed: true };

/** Encodes with the generated code and decodes again, as the request would arrive. */
function viaWire<T, I>(codec: { encode(m: I): Buffer; decode(b: Uint8Array): T }, m: I): T {
  return codec.decode(codec.encode(m));
}

describe('request converters', () => {
  it('ValidateProviderConfig', () => {
    expect(c.validateProviderConfigRequestFromWire(viaWire(pb.ValidateProviderConfig_Request, { config: { msgpack: mp(0x80) } }))).toEqual({
      config: { msgpack: mp(0x80) },
    });
    // an absent config is an empty DynamicValue (decodes as null)
    expect(c.validateProviderConfigRequestFromWire(viaWire(pb.ValidateProviderConfig_Request, {}))).toEqual({ config: {} });
  });

  it('ValidateResourceConfig and ValidateDataResourceConfig', () => {
    const req = viaWire(pb.ValidateResourceConfig_Request, { typeName: 'x_y', config: { json: Buffer.from('{}') }, clientCapabilities: caps });
    expect(c.validateResourceConfigRequestFromWire(req)).toEqual({ typeName: 'x_y', config: { json: Buffer.from('{}') }, clientCapabilities: caps });
    const noCaps = viaWire(pb.ValidateResourceConfig_Request, { typeName: 'x_y' });
    expect(c.validateResourceConfigRequestFromWire(noCaps).clientCapabilities).toBeUndefined();
    expect(
      c.validateDataResourceConfigRequestFromWire(viaWire(pb.ValidateDataResourceConfig_Request, { typeName: 'd', config: { msgpack: mp(0xc0) } })),
    ).toEqual({
      typeName: 'd',
      config: { msgpack: mp(0xc0) },
    });
  });

  it('UpgradeResourceState keeps JSON and flatmap raw state', () => {
    const req = viaWire(pb.UpgradeResourceState_Request, {
      typeName: 'x_y',
      version: 2,
      rawState: { json: Buffer.from('{"id":"1"}'), flatmap: { id: '1' } },
    });
    expect(c.upgradeResourceStateRequestFromWire(req)).toEqual({
      typeName: 'x_y',
      version: 2,
      rawState: { json: Buffer.from('{"id":"1"}'), flatmap: { id: '1' } },
    });
    expect(c.upgradeResourceStateRequestFromWire(viaWire(pb.UpgradeResourceState_Request, { typeName: 'x_y' })).rawState).toEqual({});
  });

  it('ConfigureProvider', () => {
    const req = viaWire(pb.ConfigureProvider_Request, { terraformVersion: '1.11.4', config: { msgpack: mp(0x80) }, clientCapabilities: caps });
    expect(c.configureProviderRequestFromWire(req)).toEqual({ terraformVersion: '1.11.4', config: { msgpack: mp(0x80) }, clientCapabilities: caps });
  });

  it('ReadResource', () => {
    const req = viaWire(pb.ReadResource_Request, {
      typeName: 'x_y',
      currentState: { msgpack: mp(0x80) },
      private: mp(1, 2),
      providerMeta: { msgpack: mp(0xc0) },
    });
    expect(c.readResourceRequestFromWire(req)).toEqual({
      typeName: 'x_y',
      currentState: { msgpack: mp(0x80) },
      private: mp(1, 2),
      providerMeta: { msgpack: mp(0xc0) },
      clientCapabilities: undefined,
    });
    expect(c.readResourceRequestFromWire(viaWire(pb.ReadResource_Request, { typeName: 'x_y' })).providerMeta).toBeUndefined();
  });

  it('PlanResourceChange', () => {
    const req = viaWire(pb.PlanResourceChange_Request, {
      typeName: 'x_y',
      priorState: { msgpack: mp(0xc0) },
      proposedNewState: { msgpack: mp(0x81, 0xa1, 0x61, 0x01) },
      config: { msgpack: mp(0x81, 0xa1, 0x61, 0x01) },
      priorPrivate: mp(9),
      clientCapabilities: caps,
    });
    expect(c.planResourceChangeRequestFromWire(req)).toEqual({
      typeName: 'x_y',
      priorState: { msgpack: mp(0xc0) },
      proposedNewState: { msgpack: mp(0x81, 0xa1, 0x61, 0x01) },
      config: { msgpack: mp(0x81, 0xa1, 0x61, 0x01) },
      priorPrivate: mp(9),
      providerMeta: undefined,
      clientCapabilities: caps,
    });
  });

  it('ApplyResourceChange', () => {
    const req = viaWire(pb.ApplyResourceChange_Request, {
      typeName: 'x_y',
      priorState: { msgpack: mp(0xc0) },
      plannedState: { msgpack: mp(0x80) },
      config: { msgpack: mp(0x80) },
      plannedPrivate: mp(3),
    });
    expect(c.applyResourceChangeRequestFromWire(req)).toEqual({
      typeName: 'x_y',
      priorState: { msgpack: mp(0xc0) },
      plannedState: { msgpack: mp(0x80) },
      config: { msgpack: mp(0x80) },
      plannedPrivate: mp(3),
      providerMeta: undefined,
    });
  });

  it('ImportResourceState and ReadDataSource', () => {
    expect(
      c.importResourceStateRequestFromWire(viaWire(pb.ImportResourceState_Request, { typeName: 'x_y', id: 'alice/1.2.3.4', clientCapabilities: caps })),
    ).toEqual({
      typeName: 'x_y',
      id: 'alice/1.2.3.4',
      clientCapabilities: caps,
    });
    expect(c.readDataSourceRequestFromWire(viaWire(pb.ReadDataSource_Request, { typeName: 'x_d', config: { msgpack: mp(0x80) } }))).toEqual({
      typeName: 'x_d',
      config: { msgpack: mp(0x80) },
      providerMeta: undefined,
      clientCapabilities: undefined,
    });
  });
});

describe('response converters', () => {
  const diags: Diagnostic[] = [
    {
      severity: 'error',
      summary: 'Bad IP',
      detail: '999.1.1.1 is not an address',
      attribute: [{ attributeName: 'entries' }, { elementKeyInt: 2 }, { attributeName: 'ip' }],
    },
    { severity: 'warning', summary: 'Heads up' },
    { severity: 'error', summary: 'Bad label', attribute: [{ attributeName: 'labels' }, { elementKeyString: 'office' }] },
  ];

  it('diagnostics keep severity, text and attribute paths', () => {
    const res = viaWire(pb.ValidateResourceConfig_Response, c.diagnosticsResponseToWire({ diagnostics: diags }));
    expect(res.diagnostics.map(c.diagnosticFromWire)).toEqual(diags);
    expect(res.diagnostics[0]).toEqual({
      severity: 1,
      summary: 'Bad IP',
      detail: '999.1.1.1 is not an address',
      attribute: { steps: [{ attributeName: 'entries' }, { elementKeyInt: 2 }, { attributeName: 'ip' }] },
    });
    expect(res.diagnostics[1]!.severity).toBe(2);
    expect(res.diagnostics[1]!.attribute).toBeUndefined();
  });

  it('GetProviderSchema and GetMetadata', () => {
    const thing: Schema = {
      version: 1,
      block: {
        description: 'A **thing**.',
        descriptionKind: 'markdown',
        attributes: [
          { name: 'id', type: Types.string, computed: true },
          { name: 'entries', nestedType: { nesting: 'set', attributes: [{ name: 'ip', type: Types.string, required: true }] }, optional: true },
          { name: 'password_wo', type: Types.string, optional: true, sensitive: true, writeOnly: true },
          { name: 'counts', type: Types.map(Types.number), computed: true, deprecated: true },
        ],
        blockTypes: [{ typeName: 'timeouts', nesting: 'single', block: { attributes: [{ name: 'create', type: Types.string, optional: true }] } }],
      },
    };
    const result = {
      provider: { version: 0, block: { attributes: [{ name: 'token', type: Types.string, optional: true, sensitive: true }] } },
      resourceSchemas: { x_thing: thing },
      dataSourceSchemas: { x_things: { version: 0, block: { attributes: [] } } },
      serverCapabilities: { planDestroy: true },
      diagnostics: [],
    };
    const res = viaWire(pb.GetProviderSchema_Response, c.getProviderSchemaResponseToWire(result));
    const block = res.resourceSchemas.x_thing!.block!;
    expect(res.resourceSchemas.x_thing!.version).toBe(1);
    expect(block.descriptionKind).toBe(1);
    expect(typeFromJson(block.attributes[3]!.type)).toEqual(Types.map(Types.number));
    expect(block.attributes[1]!.type.length).toBe(0);
    expect(block.attributes[1]!.nestedType!.nesting).toBe(3);
    expect(block.attributes[2]!).toMatchObject({ writeOnly: true, sensitive: true, optional: true });
    expect(block.attributes[3]!.deprecated).toBe(true);
    expect(block.blockTypes[0]).toMatchObject({ typeName: 'timeouts', nesting: 1 });
    expect(res.provider!.block!.attributes[0]!.sensitive).toBe(true);
    expect(res.serverCapabilities!.planDestroy).toBe(true);
    expect(Object.keys(res.dataSourceSchemas)).toEqual(['x_things']);

    const meta = viaWire(pb.GetMetadata_Response, c.getMetadataResponseToWire(result));
    expect(meta.resources).toEqual([{ typeName: 'x_thing' }]);
    expect(meta.dataSources).toEqual([{ typeName: 'x_things' }]);

    expect(() => c.schemaToWire({ version: 0, block: { attributes: [{ name: 'bad' }] } })).toThrow(/exactly one of type and nestedType/);
  });

  it('UpgradeResourceState, ReadResource, ApplyResourceChange, ReadDataSource', () => {
    const state = { msgpack: mp(0x80) };
    expect(viaWire(pb.UpgradeResourceState_Response, c.upgradeResourceStateResponseToWire({ upgradedState: state, diagnostics: [] })).upgradedState).toEqual({
      msgpack: mp(0x80),
      json: new Uint8Array(0),
    });
    const read = viaWire(pb.ReadResource_Response, c.readResourceResponseToWire({ newState: state, private: mp(5), diagnostics: [] }));
    expect(read.newState!.msgpack).toEqual(mp(0x80));
    expect(read.private).toEqual(mp(5));
    // a resource that is gone: no new state at all
    expect(viaWire(pb.ReadResource_Response, c.readResourceResponseToWire({ diagnostics: [] })).newState).toBeUndefined();
    const applied = viaWire(pb.ApplyResourceChange_Response, c.applyResourceChangeResponseToWire({ newState: state, diagnostics: diags }));
    expect(applied.diagnostics).toHaveLength(3);
    expect(applied.legacyTypeSystem).toBe(false);
    expect(viaWire(pb.ReadDataSource_Response, c.readDataSourceResponseToWire({ state, diagnostics: [] })).state!.msgpack).toEqual(mp(0x80));
  });

  it('PlanResourceChange with replace paths', () => {
    const res = viaWire(
      pb.PlanResourceChange_Response,
      c.planResourceChangeResponseToWire({
        plannedState: { msgpack: mp(0x80) },
        requiresReplace: [[{ attributeName: 'username' }], [{ attributeName: 'entries' }, { elementKeyString: 'k' }]],
        plannedPrivate: mp(1),
        diagnostics: [],
      }),
    );
    expect(res.requiresReplace.map(c.attributePathFromWire)).toEqual([
      [{ attributeName: 'username' }],
      [{ attributeName: 'entries' }, { elementKeyString: 'k' }],
    ]);
    expect(res.plannedPrivate).toEqual(mp(1));
    expect(res.legacyTypeSystem).toBe(false);
  });

  it('ImportResourceState and StopProvider', () => {
    const res = viaWire(
      pb.ImportResourceState_Response,
      c.importResourceStateResponseToWire({
        importedResources: [{ typeName: 'x_y', state: { msgpack: mp(0x80) }, private: mp(4) }],
        diagnostics: [],
      }),
    );
    expect(res.importedResources).toEqual([{ typeName: 'x_y', state: { msgpack: mp(0x80), json: new Uint8Array(0) }, private: mp(4) }]);
    expect(viaWire(pb.StopProvider_Response, c.stopProviderResponseToWire({ error: 'busy' }))).toEqual({ Error: 'busy' });
    expect(viaWire(pb.StopProvider_Response, c.stopProviderResponseToWire({}))).toEqual({ Error: '' });
  });
});
