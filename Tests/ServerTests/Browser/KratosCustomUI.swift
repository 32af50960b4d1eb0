import Foundation
import WebAuthnCorpus

/// A custom UI written the way Kratos custom UIs are, on its own origin: it starts browser
/// flows with a credentialed `fetch` asking for JSON, renders the flow's nodes into a form
/// that posts to `ui.action`, loads the flow's `webauthn_script` node (with its integrity),
/// puts each node's `onclick` on its button and runs the `onload` code once the script is
/// in. Nothing in it knows about Latchkey beyond the flow JSON.
///
/// Pages: `/registration`, `/login`, `/settings` (add `?manual=1` to skip `onload`),
/// `/welcome` (reads `/sessions/whoami`) and `/logout` (the browser logout URL). Each
/// records what it saw in `window.ui`.
enum KratosCustomUI {
    static func pages(latchkey: String, app: String) -> [String: FixedResponseServer.Answer] {
        let page = FixedResponseServer.Answer(contentType: "text/html; charset=utf-8", body: html(latchkey: latchkey, app: app))
        return ["/registration": page, "/login": page, "/settings": page, "/welcome": page, "/logout": page]
    }

    static func html(latchkey: String, app: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Custom UI</title></head>
        <body style="font: 16px system-ui; margin: 2rem">
        <main id="main"></main>
        <script>
        const KRATOS = \(literal(latchkey));
        const APP = \(literal(app));
        const kind = location.pathname.slice(1);
        const params = new URLSearchParams(location.search);
        const main = document.getElementById("main");
        window.ui = { state: "loading" };
        document.addEventListener("passkeyerror", function (event) { window.ui.passkeyError = event.detail; });

        function text(tag, content, className) {
          const element = document.createElement(tag);
          element.textContent = content;
          if (className) element.className = className;
          return element;
        }

        function render(flow) {
          for (const message of (flow.ui.messages || [])) main.append(text("p", message.text, "message"));
          const form = document.createElement("form");
          form.action = flow.ui.action;
          form.method = flow.ui.method;
          const onloads = [];
          for (const node of flow.ui.nodes) {
            const a = node.attributes;
            if (node.type === "script") {
              const script = document.createElement("script");
              script.src = a.src;
              script.async = a.async;
              script.crossOrigin = a.crossorigin;
              script.referrerPolicy = a.referrerpolicy;
              script.integrity = a.integrity;
              script.id = a.id;
              script.onload = function () {
                window.ui.scriptLoaded = true;
                if (!params.has("manual")) onloads.forEach(function (code) { new Function(code)(); });
              };
              script.onerror = function () { window.ui.scriptFailed = true; };
              document.head.append(script);
              continue;
            }
            if (node.type !== "input") continue;
            const label = node.meta && node.meta.label ? node.meta.label.text : "";
            let element;
            if (a.type === "button" || a.type === "submit") {
              element = text("button", label);
              element.type = a.type;
              if (a.onclick) element.setAttribute("onclick", a.onclick);
            } else {
              element = document.createElement("input");
              element.type = a.type;
              element.required = Boolean(a.required);
              if (a.autocomplete) element.autocomplete = a.autocomplete;
              if (label) form.append(text("label", label));
            }
            element.name = a.name;
            element.value = a.value || "";
            element.disabled = a.disabled;
            if (a.onload) onloads.push(a.onload);
            form.append(element);
          }
          main.append(form);
          window.ui.flow = flow;
          window.ui.state = "ready";
        }

        async function kratos(path) {
          const response = await fetch(KRATOS + path, { credentials: "include", headers: { Accept: "application/json" } });
          return { status: response.status, body: await response.json() };
        }

        async function start() {
          if (kind === "welcome") {
            window.ui.whoami = await kratos("/sessions/whoami");
            main.append(text("p", window.ui.whoami.status === 200 ? "Signed in as " + window.ui.whoami.body.identity.traits.email : "Signed out"));
            window.ui.state = "ready";
            return;
          }
          if (kind === "logout") {
            const logout = await kratos("/self-service/logout/browser");
            if (logout.status !== 200) { window.ui = { state: "error", reply: logout }; return; }
            location.assign(logout.body.logout_url + "&return_to=" + encodeURIComponent(APP + "/login?manual=1"));
            return;
          }
          const reply = await kratos("/self-service/" + kind + "/browser?return_to=" + encodeURIComponent(APP + "/welcome"));
          if (reply.status !== 200) { window.ui = { state: "error", reply: reply }; return; }
          render(reply.body);
        }
        start().catch(function (error) { window.ui = { state: "error", error: String(error) }; });
        </script>
        </body></html>
        """
    }

    private static func literal(_ text: String) -> String {
        String(decoding: JSONValue.string(text).data(), as: UTF8.self)
    }
}
