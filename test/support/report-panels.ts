/**
 * What a `ragscope report` HTML file shows in a panel, read back from the page Chromium parsed: a table panel's
 * rows and a bar chart's category labels, found by the panel's caption.
 */
import type { Page } from "playwright-core";

const panelFigure = (page: Page, title: string) => page.locator("figure.panel", { has: page.locator(`figcaption:text-is("${title}")`) });

/** A table panel's rows as column → cell text. */
export async function tableRows(page: Page, title: string): Promise<Record<string, string>[]> {
  const figure = panelFigure(page, title);
  const headers = await figure.locator("thead th").allTextContents();
  const rows: Record<string, string>[] = [];
  for (const row of await figure.locator("tbody tr").all()) {
    const cells = await row.locator("td").allTextContents();
    rows.push(Object.fromEntries(headers.map((header, index) => [header, cells[index] ?? ""])));
  }
  return rows;
}

/** A bar chart's category labels (the x field's values), top to bottom. */
export async function barCategories(page: Page, title: string): Promise<string[]> {
  return panelFigure(page, title).locator('svg text.tick[text-anchor="end"]').allTextContents();
}

/** A bar chart's bars' hover titles, "<category> · <series>: <value>" — the category whole, where a label is cut at 24 characters. */
export async function barTitles(page: Page, title: string): Promise<string[]> {
  return panelFigure(page, title).locator("svg rect.mark title").allTextContents();
}
