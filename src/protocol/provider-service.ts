// The tfplugin6.Provider service: every RPC of protocol 6.8 has the same shape (convert the
// request, call the provider, convert the response). A provider that throws gets its error turned
// into an error diagnostic, never a gRPC failure; RPCs the provider does not implement (moves,
// ephemeral resources, functions) get a proper answer.
import * as c from './convert';
import type * as pb from './gen/tfplugin6';
import type { LogFn } from './log';
import type { ProviderServer } from './types';

/** Options of {@link createProviderHandlers}. */
export interface ProviderHandlerOptions {
  /** Where log entries go. */
  readonly log: LogFn;
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
  const { log } = opts;

  const unsupported = (what: string): pb.DiagnosticInput => ({
    severity: 1,
    summary: `${what} is not supported by the ${name} provider`,
    detail: `The ${name} provider does not implement ${what}. Remove it from the configuration.`,
  });

  /** Runs one RPC; an exception becomes an error diagnostic (and a log entry with the stack). */
  const guarded = <Req, Res extends { diagnostics?: pb.DiagnosticInput[] }>(
    rpc: string,
    body: (req: Req) => Promise<Res>,
  ) => {
    return async (req: Req): Promise<Res> => {
      log('trace', `${rpc} called`, { rpc });
      try {
        return await body(req);
      } catch (err) {
        log('error', `${rpc} failed: ${errorMessage(err)}`, { rpc, stack: err instanceof Error ? String(err.stack) : '' });
        const diagnostic: pb.DiagnosticInput = {
          severity: 1,
          summary: `Unexpected error in the ${name} provider`,
          detail: `${rpc} failed: ${errorMessage(err)}\n\nThis is a bug in the provider; run with TF_LOG=DEBUG for its log.`,
        };
        return { diagnostics: [diagnostic] } as Res;
      }
    };
  };

  return {
    GetMetadata: guarded('GetMetadata', async () => c.getMetadataResponseToWire(await provider.getProviderSchema())),
    GetProviderSchema: guarded('GetProviderSchema', async () =>
      c.getProviderSchemaResponseToWire(await provider.getProviderSchema()),
    ),
    ValidateProviderConfig: guarded('ValidateProviderConfig', async (req: pb.ValidateProviderConfig_Request) =>
      c.diagnosticsResponseToWire(await provider.validateProviderConfig(c.validateProviderConfigRequestFromWire(req))),
    ),
    ValidateResourceConfig: guarded('ValidateResourceConfig', async (req: pb.ValidateResourceConfig_Request) =>
      c.diagnosticsResponseToWire(await provider.validateResourceConfig(c.validateResourceConfigRequestFromWire(req))),
    ),
    ValidateDataResourceConfig: guarded('ValidateDataResourceConfig', async (req: pb.ValidateDataResourceConfig_Request) =>
      c.diagnosticsResponseToWire(
        await provider.validateDataResourceConfig(c.validateDataResourceConfigRequestFromWire(req)),
      ),
    ),
    UpgradeResourceState: guarded('UpgradeResourceState', async (req: pb.UpgradeResourceState_Request) =>
      c.upgradeResourceStateResponseToWire(await provider.upgradeResourceState(c.upgradeResourceStateRequestFromWire(req))),
    ),
    ConfigureProvider: guarded('ConfigureProvider', async (req: pb.ConfigureProvider_Request) =>
      c.diagnosticsResponseToWire(await provider.configureProvider(c.configureProviderRequestFromWire(req))),
    ),
    ReadResource: guarded('ReadResource', async (req: pb.ReadResource_Request) =>
      c.readResourceResponseToWire(await provider.readResource(c.readResourceRequestFromWire(req))),
    ),
    PlanResourceChange: guarded('PlanResourceChange', async (req: pb.PlanResourceChange_Request) =>
      c.planResourceChangeResponseToWire(await provider.planResourceChange(c.planResourceChangeRequestFromWire(req))),
    ),
    ApplyResourceChange: guarded('ApplyResourceChange', async (req: pb.ApplyResourceChange_Request) =>
      c.applyResourceChangeResponseToWire(await provider.applyResourceChange(c.applyResourceChangeRequestFromWire(req))),
    ),
    ImportResourceState: guarded('ImportResourceState', async (req: pb.ImportResourceState_Request) =>
      c.importResourceStateResponseToWire(await provider.importResourceState(c.importResourceStateRequestFromWire(req))),
    ),
    MoveResourceState: guarded('MoveResourceState', async (req: pb.MoveResourceState_Request) => ({
      diagnostics: [unsupported(`Moving "${req.sourceTypeName}" to "${req.targetTypeName}" (moved block)`)],
    })),
    ReadDataSource: guarded('ReadDataSource', async (req: pb.ReadDataSource_Request) =>
      c.readDataSourceResponseToWire(await provider.readDataSource(c.readDataSourceRequestFromWire(req))),
    ),
    ValidateEphemeralResourceConfig: guarded(
      'ValidateEphemeralResourceConfig',
      async (req: pb.ValidateEphemeralResourceConfig_Request) => ({
        diagnostics: [unsupported(`The ephemeral resource "${req.typeName}"`)],
      }),
    ),
    OpenEphemeralResource: guarded('OpenEphemeralResource', async (req: pb.OpenEphemeralResource_Request) => ({
      diagnostics: [unsupported(`The ephemeral resource "${req.typeName}"`)],
    })),
    RenewEphemeralResource: guarded('RenewEphemeralResource', async (req: pb.RenewEphemeralResource_Request) => ({
      diagnostics: [unsupported(`The ephemeral resource "${req.typeName}"`)],
    })),
    CloseEphemeralResource: guarded('CloseEphemeralResource', async (req: pb.CloseEphemeralResource_Request) => ({
      diagnostics: [unsupported(`The ephemeral resource "${req.typeName}"`)],
    })),
    GetFunctions: guarded('GetFunctions', async () => ({ functions: {}, diagnostics: [] })),
    // CallFunction reports through FunctionError, not diagnostics.
    CallFunction: async (req: pb.CallFunction_Request) => ({
      error: { text: `The function "${req.name}" is not supported by the ${name} provider` },
    }),
    // StopProvider reports through its Error string, not diagnostics.
    StopProvider: async () => {
      log('debug', 'StopProvider called');
      try {
        return c.stopProviderResponseToWire(await provider.stopProvider());
      } catch (err) {
        log('error', `StopProvider failed: ${errorMessage(err)}`);
        return { Error: errorMessage(err) };
      }
    },
  };
}
