/**
 * Validates a JUnit XML document against the published JUnit schemas in
 * test/data/junit (SOURCE.md) with libxml2 (xmllint-wasm): an independent
 * validator, not our own reading of the format.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { validateXML } from "xmllint-wasm";

const folder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../data/junit");
export const JUNIT_SCHEMAS = ["JUnit.xsd", "junit-10.xsd"] as const;

/** The schema errors per schema file; empty lists when the document is valid against both. */
export async function junitSchemaErrors(xml: string): Promise<Record<(typeof JUNIT_SCHEMAS)[number], string[]>> {
  const errors = {} as Record<(typeof JUNIT_SCHEMAS)[number], string[]>;
  for (const schema of JUNIT_SCHEMAS) {
    const result = await validateXML({ xml: { fileName: "results.xml", contents: xml }, schema: { fileName: schema, contents: await readFile(path.join(folder, schema), "utf8") } });
    errors[schema] = result.valid ? [] : result.errors.map((error) => error.rawMessage);
  }
  return errors;
}
