import Foundation
import Testing

/// The accessibility checks every hosted page passes, in every language, run in Chromium
/// against the page as the browser laid it out: names for every control, one `h1`,
/// landmarks, a visible focus that follows the document's order, one live status area, AA
/// contrast for every piece of text, links told apart by more than colour, no sideways
/// scrolling at 320 px (WCAG 1.4.10, which 400% zoom on a 1280 px screen comes to) or at
/// 640 px (200%), and a mirrored layout for a right-to-left language.
enum PageAudit {
    /// Records an issue for each check `page` fails.
    static func check(_ tab: BrowserTab, _ page: String, rightToLeft: Bool = false, hasStatus: Bool = true) async throws {
        let problems = try await tab.evaluate("(\(script))(\(rightToLeft), \(hasStatus))")
        #expect(problems == .array([]), "\(page): \(problems)")
        try await focusFollowsTheDocument(tab, page)
        for width in [320, 640] {
            _ = try await tab.send("Emulation.setDeviceMetricsOverride", [
                "width": .number(Double(width)), "height": .number(800), "deviceScaleFactor": .number(1), "mobile": .bool(width < 400),
            ])
            // (Against the layout's width: the viewport's includes a scroll bar.)
            let overflow = try await tab.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            #expect(overflow == .number(0), "\(page) scrolls sideways at \(width) px by \(overflow)")
        }
        _ = try await tab.send("Emulation.clearDeviceMetricsOverride")
    }

    /// Tab moves through the controls in document order, and each shows where focus is.
    static func focusFollowsTheDocument(_ tab: BrowserTab, _ page: String) async throws {
        _ = try await tab.evaluate("document.activeElement && document.activeElement.blur(); window.__focusOrder = []; true")
        for _ in 0..<8 {
            for type in ["keyDown", "keyUp"] {
                _ = try await tab.send("Input.dispatchKeyEvent", ["type": .string(type), "key": .string("Tab"), "code": .string("Tab"), "windowsVirtualKeyCode": .number(9)])
            }
            _ = try await tab.evaluate("""
                (() => { const e = document.activeElement; if (!e || e === document.body) return false;
                  const style = getComputedStyle(e);
                  window.__focusOrder.push({ html: e.outerHTML.slice(0, 60), visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 });
                  return true; })()
                """)
        }
        let order = try await tab.evaluate("""
            (() => { const all = Array.from(document.querySelectorAll('a[href], button, input, select, textarea, summary'));
              const seen = window.__focusOrder;
              const invisible = seen.filter(s => !s.visible).map(s => s.html);
              return { invisible, count: seen.length }; })()
            """)
        #expect(order["invisible"] == .array([]), "\(page): focus not visible on \(order)")
        #expect((order["count"]?.number ?? 0) >= 3, "\(page): Tab reached too few controls: \(order)")
        let positive = try await tab.evaluate("document.querySelectorAll('[tabindex]:not([tabindex=\"0\"]):not([tabindex=\"-1\"])').length")
        #expect(positive == .number(0), "\(page): a positive tabindex reorders focus")
    }

    /// The checks made in the page, as one function of (rightToLeft, hasStatus) returning a
    /// list of problems.
    static let script = #"""
    function (rightToLeft, hasStatus) {
      const problems = [];
      const visible = e => e.offsetParent !== null || getComputedStyle(e).position === 'fixed';
      // Names: every field and button.
      for (const e of document.querySelectorAll('input:not([type=hidden]), select, textarea, button')) {
        if (!visible(e)) continue;
        const named = (e.labels && e.labels.length && Array.from(e.labels).some(l => l.textContent.trim())) || e.getAttribute('aria-label') || (e.tagName === 'BUTTON' && e.textContent.trim());
        if (!named) problems.push('no name: ' + e.outerHTML.slice(0, 80));
      }
      // Headings and landmarks.
      const h1 = document.querySelectorAll('h1').length;
      if (h1 !== 1) problems.push(h1 + ' h1 elements');
      for (const landmark of ['header', 'main', 'footer']) if (document.querySelectorAll(landmark).length !== 1) problems.push('landmark ' + landmark);
      if (!document.documentElement.lang) problems.push('no lang');
      // One live status area, where the page has one.
      const live = document.querySelectorAll('[aria-live]').length;
      if (live !== (hasStatus ? 1 : 0)) problems.push(live + ' live regions');
      // Contrast of every piece of visible text against what is behind it.
      const rgb = c => { const m = c.match(/[\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
      const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
      const background = e => { for (let n = e; n; n = n.parentElement) { const c = rgb(getComputedStyle(n).backgroundColor); if (c.a > 0.5) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      const checked = new Set();
      while (walker.nextNode()) {
        const node = walker.currentNode, e = node.parentElement;
        if (!node.textContent.trim() || !e || checked.has(e) || !visible(e) || e.closest('[hidden], template, script, option')) continue;
        checked.add(e);
        const style = getComputedStyle(e);
        const fg = rgb(style.color), bg = background(e);
        const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
        const ratio = (hi + 0.05) / (lo + 0.05);
        const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight) >= 700;
        const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
        if (ratio < needed) problems.push('contrast ' + ratio.toFixed(2) + ' for "' + node.textContent.trim().slice(0, 30) + '"');
      }
      // Links within text are underlined, not told apart by colour alone.
      for (const a of document.querySelectorAll('main p a:not(.button), footer a')) {
        if (visible(a) && !getComputedStyle(a).textDecorationLine.includes('underline')) problems.push('link without underline: ' + a.textContent.trim());
      }
      // Right to left: the page's direction, and the header mirrored (the brand at the right).
      if (rightToLeft) {
        if (getComputedStyle(document.body).direction !== 'rtl') problems.push('not rtl');
        const brand = document.querySelector('.brand').getBoundingClientRect(), nav = document.querySelector('.bar nav').getBoundingClientRect();
        if (!(brand.left > nav.left)) problems.push('header not mirrored');
      }
      return problems;
    }
    """#
}
