/**
 * Sample rates per tenant, route and service (issue 6 "rates per service,
 * route and tenant").
 *
 * Precedence, most specific first: a tenant's rate, else the route's, else the
 * service's, else the default. A tenant's rate is usually a commitment to
 * that customer (judge more of a premium tenant's traffic, none of a test
 * tenant's), so it wins over the product surface (route), which wins over the
 * whole application (service). Rates are in [0, 1].
 */

export interface SampleRates {
  defaultRate: number;
  services: Readonly<Record<string, number>>;
  routes: Readonly<Record<string, number>>;
  tenants: Readonly<Record<string, number>>;
}

export interface TraceOrigin {
  serviceName: string | null;
  route: string | null;
  tenantId: string | null;
}

export type RateSource = "tenant" | "route" | "service" | "default";

export interface ResolvedRate {
  rate: number;
  source: RateSource;
}

export function resolveSampleRate(rates: SampleRates, origin: TraceOrigin): ResolvedRate {
  const pick = (table: Readonly<Record<string, number>>, key: string | null) => (key !== null && Object.hasOwn(table, key) ? table[key] : undefined);
  const tenant = pick(rates.tenants, origin.tenantId);
  if (tenant !== undefined) return { rate: tenant, source: "tenant" };
  const route = pick(rates.routes, origin.route);
  if (route !== undefined) return { rate: route, source: "route" };
  const service = pick(rates.services, origin.serviceName);
  if (service !== undefined) return { rate: service, source: "service" };
  return { rate: rates.defaultRate, source: "default" };
}

/** Throws on a rate outside [0, 1]: configuration is validated before it gets here (collector/wiring/online/online-config.ts). */
export function assertValidRates(rates: SampleRates): void {
  const check = (where: string, rate: number) => {
    if (!(rate >= 0 && rate <= 1)) throw new RangeError(`sample rate ${where} must be between 0 and 1, got ${rate}`);
  };
  check("default", rates.defaultRate);
  for (const [table, entries] of [["services", rates.services], ["routes", rates.routes], ["tenants", rates.tenants]] as const) {
    for (const [key, rate] of Object.entries(entries)) check(`${table}.${key}`, rate);
  }
}
