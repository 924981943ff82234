/**
 * A JUnit document's suites as a test reads them (fast-xml-parser: attributes
 * as plain fields, every testsuite and testcase a list even when alone), for
 * the tests of `eval --junit` and `gate --junit`.
 */
import { XMLParser } from "fast-xml-parser";

export interface JunitElement {
  message?: string;
  type?: string;
  "#text"?: string;
}

export interface JunitTestcase {
  name: string;
  classname: string;
  failure?: JunitElement;
  error?: JunitElement;
  skipped?: JunitElement;
}

export interface JunitSuite {
  name: string;
  id: string;
  tests: string;
  failures: string;
  errors: string;
  skipped: string;
  timestamp: string;
  testcase: JunitTestcase[];
}

export const parseJunitSuites = (xml: string) =>
  new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", isArray: (name) => name === "testsuite" || name === "testcase" }).parse(xml).testsuites.testsuite as JunitSuite[];
