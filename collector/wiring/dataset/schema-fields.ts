/**
 * The field names a strict zod object takes at a path of a value it parses,
 * e.g. `gold_evidence[0]` of the Eval Case schema: the names an unknown field
 * is compared with, so that `validate` says "did you mean "question"?" from
 * the schema itself rather than from a copied list that could drift.
 */
import type { z } from "zod";

/** The definition fields of zod 4's schema kinds walked here (its `_zod.def`). */
interface Definition {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  options?: readonly z.ZodType[];
  valueType?: z.ZodType;
  getter?: () => z.ZodType;
}

const definitionOf = (schema: z.ZodType): Definition => (schema as unknown as { _zod: { def: Definition } })._zod.def;

/** The object schemas `schema` may be once wrappers (optional, default, pipe, …) are taken off; a union gives each branch's. */
function objectsOf(schema: z.ZodType, depth = 0): z.ZodType[] {
  if (depth > 20) return [];
  const definition = definitionOf(schema);
  if (definition.type === "object") return [schema];
  if (definition.type === "union") return (definition.options ?? []).flatMap((option) => objectsOf(option, depth + 1));
  if (definition.type === "lazy" && definition.getter) return objectsOf(definition.getter(), depth + 1);
  const inner = definition.innerType ?? definition.in;
  return inner === undefined ? [] : objectsOf(inner, depth + 1);
}

/** The schemas at one step of a path: a field of an object, an item of a list or a record. */
function step(schema: z.ZodType, segment: PropertyKey, depth = 0): z.ZodType[] {
  if (depth > 20) return [];
  const definition = definitionOf(schema);
  if (typeof segment === "number") {
    if (definition.type === "array" && definition.element) return [definition.element];
  } else if (definition.type === "object") {
    const field = definition.shape?.[String(segment)];
    return field === undefined ? [] : [field];
  } else if (definition.type === "record" && definition.valueType) {
    return [definition.valueType];
  }
  if (definition.type === "union") return (definition.options ?? []).flatMap((option) => step(option, segment, depth + 1));
  if (definition.type === "lazy" && definition.getter) return step(definition.getter(), segment, depth + 1);
  const inner = definition.innerType ?? definition.in;
  return inner === undefined ? [] : step(inner, segment, depth + 1);
}

/** The field names the object at `path` of `schema` takes; empty when the path reaches no object. */
export function fieldsAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  let current: z.ZodType[] = [schema];
  for (const segment of path) current = current.flatMap((candidate) => step(candidate, segment));
  return [...new Set(current.flatMap(objectsOf).flatMap((object) => Object.keys(definitionOf(object).shape ?? {})))];
}
