// The tfplugin6.Provider service: every RPC of protocol 6.8 has the same shape (convert the
// request, call the provider, convert the response). Diagnostics are the provider's business (the
// framework's server turns its errors into them); an exception that reaches this layer is a bug
// and becomes a gRPC INTERNAL error, as in terraform-plugin-go. RPCs the provider does not
// implement (moves, ephemeral resources, functions) get a proper answer.
import * as wire from './convert';
import type * as pb from './gen/tfplugin6';
import type { Logger } from './log';
import type { ProviderServer } from './types';

/** Options of {@link createProviderHandlers}. */
export interface ProviderHandlerOptions {
  /** Where log entries go (each RPC at DEBUG with its duration, when that level is on). */
  readonly logger: Logger;
  /** Name used in user-facing messages. @default 'proxyaccount' */
  readonly providerName?: string;
}

type Handlers = pb.ProviderServiceHandlers;

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Builds the handler of every tfplugin6.Provider RPC around a ProviderServer. */
export function createProviderHandlers(provider: ProviderServer, opts: ProviderHandlerOptions): Handlers {
  const name = opts.providerName ?? 'proxyaccount';
  const { logger } = opts;
  const log = logger.log;

  const unsupported = (what: string): pb.DiagnosticInput => ({
    severity: 1,
    summary: `${what} is not supported by the ${name} provider`,
    detail: `The ${name} provider does not implement ${what}. Remove it from the configuration.`,
  });

  /** Runs one RPC: logged at DEBUG with its duration when that level is on; an exception is a bug (gRPC INTERNAL). */
  const guarded = <Req, Res extends { diagnostics?: pb.DiagnosticInput[] }>(rpc: string, body: (req: Req) => Promise<Res>) => {
    return async (req: Req): Promise<Res> => {
      if (!logger.enabled('debug')) return body(req);
      const typeName = (req as { typeName?: unknown }).typeName;
      const fields = { tf_rpc: rpc, ...(typeof typeName === 'string' ? { tf_resource_type: typeName } : {}) };
      const start = performance.now();
      try {
        return await body(req);
      } finally {
        log('debug', `${rpc} served`, { ...fields, duration_ms: Math.round(performance.now() - start) });
      }
    };
  };

  return {
    GetMetadata: guarded('GetMetadata', async () => wire.getMetadataResponseToWire(await provider.getProviderSchema())),
    GetProviderSchema: guarded('GetProviderSchema', async () => wire.getProviderSchemaResponseToWire(await provider.getProviderSchema())),
    ValidateProviderConfig: guarded('ValidateProviderConfig', async (req: pb.ValidateProviderConfig_Request) =>
      wire.diagnosticsResponseToWire(await provider.validateProviderConfig(wire.validateProviderConfigRequestFromWire(req))),
    ),
    ValidateResourceConfig: guarded('ValidateResourceConfig', async (req: pb.ValidateResourceConfig_Request) =>
      wire.diagnosticsResponseToWire(await provider.validateResourceConfig(wire.validateResourceConfigRequestFromWire(req))),
    ),
    ValidateDataResourceConfig: guarded('ValidateDataResourceConfig', async (req: pb.ValidateDataResourceConfig_Request) =>
      wire.diagnosticsResponseToWire(await provider.validateDataResourceConfig(wire.validateDataResourceConfigRequestFromWire(req))),
    ),
    UpgradeResourceState: guarded('UpgradeResourceState', async (req: pb.UpgradeResourceState_Request) =>
      wire.upgradeResourceStateResponseToWire(await provider.upgradeResourceState(wire.upgradeResourceStateRequestFromWire(req))),
    ),
    ConfigureProvider: guarded('ConfigureProvider', async (req: pb.ConfigureProvider_Request) =>
      wire.diagnosticsResponseToWire(await provider.configureProvider(wire.configureProviderRequestFromWire(req))),
    ),
    ReadResource: guarded('ReadResource', async (req: pb.ReadResource_Request) =>
      wire.readResourceResponseToWire(await provider.readResource(wire.readResourceRequestFromWire(req))),
    ),
    PlanResourceChange: guarded('PlanResourceChange', async (req: pb.PlanResourceChange_Request) =>
      wire.planResourceChangeResponseToWire(await provider.planResourceChange(wire.planResourceChangeRequestFromWire(req))),
    ),
    ApplyResourceChange: guarded('ApplyResourceChange', async (req: pb.ApplyResourceChange_Request) =>
      wire.applyResourceChangeResponseToWire(await provider.applyResourceChange(wire.applyResourceChangeRequestFromWire(req))),
    ),
    ImportResourceState: guarded('ImportResourceState', async (req: pb.ImportResourceState_Request) =>
      wire.importResourceStateResponseToWire(await provider.importResourceState(wire.importResourceStateRequestFromWire(req))),
    ),
    MoveResourceState: guarded('MoveResourceState', async (req: pb.MoveResourceState_Request) => ({
      diagnostics: [unsupported(`Moving "${req.sourceTypeName}" to "${req.targetTypeName}" (moved block)`)],
    })),
    ReadDataSource: guarded('ReadDataSource', async (req: pb.ReadDataSource_Request) =>
      wire.readDataSourceResponseToWire(await provider.readDataSource(wire.readDataSourceRequestFromWire(req))),
    ),
    ValidateEphemeralResourceConfig: guarded('ValidateEphemeralResourceConfig', async (req: pb.ValidateEphemeralResourceConfig_Request) =>
      provider.validateEphemeralResourceConfig !== undefined
        ? wire.diagnosticsResponseToWire(
            await provider.validateEphemeralResourceConfig({ typeName: req.typeName, config: wire.dynamicValueFromWire(req.config) }),
          )
        : { diagnostics: [unsupported(`The ephemeral resource "${req.typeName}"`)] },
    ),
    OpenEphemeralResource: guarded('OpenEphemeralResource', async (req: pb.OpenEphemeralResource_Request) =>
      provider.openEphemeralResource !== undefined
        ? wire.openEphemeralResourceResponseToWire(await provider.openEphemeralResource(wire.openEphemeralResourceRequestFromWire(req)))
        : { diagnostics: [unsupported(`The ephemeral resource "${req.typeName}"`)] },
    ),
    RenewEphemeralResource: guarded('RenewEphemeralResource', async (req: pb.RenewEphemeralResource_Request) =>
      provider.renewEphemeralResource !== undefined
        ? wire.diagnosticsResponseToWire(await provider.renewEphemeralResource({ typeName: req.typeName, private: req.private }))
        : { diagnostics: [unsupported(`The ephemeral resource "${req.typeName}"`)] },
    ),
    CloseEphemeralResource: guarded('CloseEphemeralResource', async (req: pb.CloseEphemeralResource_Request) =>
      provider.closeEphemeralResource !== undefined
        ? wire.diagnosticsResponseToWire(await provider.closeEphemeralResource({ typeName: req.typeName, private: req.private }))
        : { diagnostics: [unsupported(`The ephemeral resource "${req.typeName}"`)] },
    ),
    GetFunctions: guarded('GetFunctions', async () => ({ functions: {}, diagnostics: [] })),
    // CallFunction reports through FunctionError, not diagnostics.
    CallFunction: async (req: pb.CallFunction_Request) => ({
      error: { text: `The function "${req.name}" is not supported by the ${name} provider` },
    }),
    // StopProvider reports through its Error string, not diagnostics.
    StopProvider: async () => {
      log('debug', 'StopProvider called');
      try {
        return wire.stopProviderResponseToWire(await provider.stopProvider());
      } catch (err) {
        log('error', `StopProvider failed: ${errorMessage(err)}`);
        return { Error: errorMessage(err) };
      }
    },
  };
}
