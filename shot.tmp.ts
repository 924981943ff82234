import { chromium } from "playwright-core";
const ctx = await chromium.launchPersistentContext("/tmp/chr2", { executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox","--disable-gpu"], viewport: { width: 1400, height: 1000 } });
const page = ctx.pages()[0] ?? await ctx.newPage();
await page.goto("file:///tmp/report-try/report.html");
for (const id of ["ragscope-failures", "ragscope-runs", "ragscope-collector-health"]) await page.locator(`#${id}`).screenshot({ path: `/tmp/report-try/${id}.png` });
const rows = page.locator("h3.row", { hasText: "Engineering" });
await page.locator('#ragscope-rag-quality').screenshot({ path: `/tmp/report-try/quality.png` });
await ctx.close();
