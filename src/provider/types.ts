// The framework's generic definitions, bound to this provider's data: the account store that
// configure builds. Resources and data sources are typed with these.
import type { AccountStore } from '../account';
import type { DataSourceDefinition, ObjectSchema, ResourceContext, ResourceDefinition } from './framework';

/** A `proxyaccount_*` managed resource type. */
export type Resource<S extends ObjectSchema> = ResourceDefinition<S, AccountStore>;

/** A `proxyaccount_*` data source type. */
export type DataSource<S extends ObjectSchema> = DataSourceDefinition<S, AccountStore>;

/** The context of a CRUD call: `ctx.data` is the account store. */
export type Ctx = ResourceContext<AccountStore>;
