// /api/geoips/*: proxy IP counts per country for the open and world pools.
import { geoIpMap } from '../catalogue';
import type { Route } from '../router';

/** The geo-IP endpoints. */
export const geoIpRoutes: readonly Route[] = [
  { method: 'GET', path: '/api/geoips/open/', fields: [], handle: () => ({ status: 200, json: geoIpMap('open') }) },
  { method: 'GET', path: '/api/geoips/world/', fields: [], handle: () => ({ status: 200, json: geoIpMap('world') }) },
];
