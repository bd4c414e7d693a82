// Every API route, in the API contract's order.
import type { Route } from '../router';
import { accessListRoutes } from './access-lists';
import { geoIpRoutes } from './geoips';
import { proxyRoutes } from './proxies';
import { subAccountRoutes } from './subaccounts';
import { tokenRoutes } from './tokens';

/** All routes of the account API. */
export const apiRoutes: readonly Route[] = [...subAccountRoutes, ...accessListRoutes, ...proxyRoutes, ...tokenRoutes, ...geoIpRoutes];
