/**
 * The methods the UI's routes take at a path, for a request no route answers:
 * a path some route has, asked with another method, is 405 naming them in
 * `Allow` (RFC 9110 §15.5.6); a path no route has is 404. A client that
 * guessed the method wrong learns the right one instead of "nothing at".
 */
import type { RouterRoute } from "hono/types";

/** Hono answers HEAD with the GET route, the body left out. */
const IMPLIED_METHODS: Readonly<Record<string, readonly string[]>> = { GET: ["GET", "HEAD"] };

/**
 * The methods of the routes whose pattern matches `path`, in a fixed order; empty when none does. Middleware
 * (`app.use`, method ALL) answers no request by itself and is left out.
 */
export function allowedMethods(routes: readonly RouterRoute[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (route.method === "ALL" || !patternOf(route.path).test(path)) continue;
    for (const method of IMPLIED_METHODS[route.method] ?? [route.method]) methods.add(method);
  }
  return [...methods].sort();
}

const patterns = new Map<string, RegExp>();

/** The UI's route paths are literal segments and `:name` parameters, each one segment, as Hono matches them. */
function patternOf(routePath: string): RegExp {
  let pattern = patterns.get(routePath);
  if (pattern === undefined) {
    const segments = routePath.split("/").map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    pattern = new RegExp(`^${segments.join("/")}$`);
    patterns.set(routePath, pattern);
  }
  return pattern;
}
