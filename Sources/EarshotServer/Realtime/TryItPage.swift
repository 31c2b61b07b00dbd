import HTTPTypes
import Hummingbird

/// `GET /`: one page to try the service in a browser, compiled into the binary (no build step, no
/// external resources). The microphone goes through an AudioWorklet, resampled to 24 kHz PCM16 and
/// sent in 100 ms `append`s over `/v1/realtime`, with `server_vad` turn detection; the page shows the
/// level, the speech state, the partial text as it grows, and each final with the time from the end
/// of speech (`speech_stopped`) to its `completed`.
///
/// The page holds no key: the user gives one (typed in the form, or in the URL's fragment,
/// `/#key=KEY`, which browsers never send to a server and which the page removes from the address
/// bar at once), the page trades it for a client secret (`POST /v1/realtime/client_secrets`) and
/// forgets it; the WebSocket opens with the secret, as the subprotocol `openai-insecure-api-key.…`.
/// Browsers give the microphone to `http://127.0.0.1` and `http://localhost`; anywhere else the page
/// must come over HTTPS (see "Behind nginx with TLS" in RunningTheService.md).
enum TryItPage {
    static func respond(_ request: Request) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        // Nothing from elsewhere: scripts, styles and connections stay on this origin (and the blob the
        // worklet is loaded from).
        headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; style-src 'unsafe-inline'; "
            + "connect-src 'self' ws: wss:; worker-src blob:"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Earshot — live transcription</title>
        <link rel="icon" href="data:,">
        <style>
          body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
          form { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; }
          input[type=password] { flex: 1; min-width: 14rem; }
          #meter { height: .6rem; background: #eee; border-radius: .3rem; overflow: hidden; margin: 1rem 0 .3rem; }
          #level { height: 100%; width: 0; background: #3a7; transition: width .08s; }
          #state { font-weight: 600; }
          #partial { color: #777; min-height: 1.5em; font-style: italic; }
          #finals li { margin: .3rem 0; }
          .latency { color: #777; font-size: .85em; margin-left: .5rem; }
          #status { color: #a33; min-height: 1.5em; }
        </style>
        </head>
        <body>
        <h1>Earshot</h1>
        <p>Speak; the service finds the end of each sentence and transcribes it.</p>
        <form id="form">
          <input id="key" type="password" autocomplete="off" placeholder="API key or SPEECH access token">
          <input id="model" value="whisper-1" size="16" aria-label="model">
          <button id="start" type="submit">Start</button>
          <button id="stop" type="button" disabled>Stop</button>
        </form>
        <div id="meter"><div id="level"></div></div>
        <div>State: <span id="state">idle</span> <span id="levelText"></span></div>
        <div id="partial"></div>
        <ol id="finals"></ol>
        <div id="status"></div>
        <script>
        "use strict";
        const $ = (id) => document.getElementById(id);
        // A key in the fragment (/#key=…) fills the form, and leaves the address bar and history at once.
        const fragment = new URLSearchParams(location.hash.slice(1));
        if (fragment.get("key")) { $("key").value = fragment.get("key"); history.replaceState(null, "", location.pathname); }

        const workletSource = `
        class Capture extends AudioWorkletProcessor {
          constructor() { super(); this.step = sampleRate / 24000; this.position = 0; this.out = new Int16Array(2400); this.n = 0; this.sum = 0; this.count = 0; this.previous = 0; }
          process(inputs) {
            const input = inputs[0] && inputs[0][0];
            if (!input) return true;
            // Linear interpolation from the context's rate to 24 kHz; position -1 is the last sample of
            // the block before.
            while (this.position < input.length - 1) {
              const i = Math.floor(this.position), fraction = this.position - i;
              const a = i < 0 ? this.previous : input[i];
              const value = Math.max(-1, Math.min(1, a + (input[i + 1] - a) * fraction));
              this.out[this.n++] = value < 0 ? value * 32768 : value * 32767;
              this.sum += value * value; this.count++;
              if (this.n === this.out.length) {
                this.port.postMessage({ pcm: this.out.buffer, rms: Math.sqrt(this.sum / this.count) }, [this.out.buffer]);
                this.out = new Int16Array(2400); this.n = 0; this.sum = 0; this.count = 0;
              }
              this.position += this.step;
            }
            this.position -= input.length;
            this.previous = input[input.length - 1];
            return true;
          }
        }
        registerProcessor("capture", Capture);`;

        let socket = null, context = null, stream = null, stoppedAt = null;

        function base64(buffer) {
          const bytes = new Uint8Array(buffer); let text = "";
          for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
          return btoa(text);
        }

        function show(level) {
          const db = level > 0 ? 20 * Math.log10(level) : -100;
          $("level").style.width = Math.max(0, Math.min(100, (db + 60) / 60 * 100)) + "%";
          $("levelText").textContent = db > -100 ? `(${db.toFixed(0)} dBFS)` : "";
        }

        function received(event) {
          switch (event.type) {
            case "session.created": $("state").textContent = "listening"; break;
            case "input_audio_buffer.speech_started": $("state").textContent = "speech"; $("partial").textContent = ""; break;
            case "input_audio_buffer.speech_stopped": $("state").textContent = "transcribing"; stoppedAt = performance.now(); break;
            case "conversation.item.input_audio_transcription.delta": $("partial").textContent += event.delta; break;
            case "conversation.item.input_audio_transcription.completed": {
              const item = document.createElement("li");
              item.className = "final";
              item.textContent = event.transcript;
              if (stoppedAt !== null) {
                const latency = document.createElement("span");
                latency.className = "latency";
                latency.textContent = ` ${Math.round(performance.now() - stoppedAt)} ms after the end of speech was detected`;
                item.appendChild(latency);
              }
              $("finals").appendChild(item); $("partial").textContent = ""; $("state").textContent = "listening"; stoppedAt = null;
              break;
            }
            case "conversation.item.input_audio_transcription.failed": $("status").textContent = event.error.message; break;
            case "error": $("status").textContent = event.error.message; break;
          }
        }

        async function start() {
          $("status").textContent = "";
          const key = $("key").value.trim();
          if (!key) { $("status").textContent = "Give an API key or a SPEECH access token."; return; }
          const answer = await fetch("/v1/realtime/client_secrets", {
            method: "POST", headers: { "Authorization": "Bearer " + key, "Content-Type": "application/json" },
            body: JSON.stringify({ expires_after: { anchor: "created_at", seconds: 60 } }) });
          const secret = await answer.json();
          if (!answer.ok) { $("status").textContent = secret.error ? secret.error.message : "the service refused the key"; return; }
          // The key is no longer needed: only the minute-long secret opens the session.
          $("key").value = "";
          stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: false } });
          context = new AudioContext();
          const url = URL.createObjectURL(new Blob([workletSource], { type: "application/javascript" }));
          await context.audioWorklet.addModule(url);
          const capture = new AudioWorkletNode(context, "capture");
          context.createMediaStreamSource(stream).connect(capture);
          const scheme = location.protocol === "https:" ? "wss" : "ws";
          socket = new WebSocket(`${scheme}://${location.host}/v1/realtime?intent=transcription`, ["realtime", "openai-insecure-api-key." + secret.value]);
          socket.onopen = () => {
            socket.send(JSON.stringify({ type: "session.update", session: { type: "transcription", audio: { input: {
              format: { type: "audio/pcm", rate: 24000 }, transcription: { model: $("model").value },
              turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 } } } } }));
            capture.port.onmessage = (message) => {
              show(message.data.rms);
              if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "input_audio_buffer.append", audio: base64(message.data.pcm) }));
            };
          };
          socket.onmessage = (message) => received(JSON.parse(message.data));
          socket.onclose = (close) => { $("state").textContent = "closed" + (close.reason ? ` (${close.reason})` : ""); stop(); };
          $("start").disabled = true; $("stop").disabled = false;
        }

        function stop() {
          if (socket && socket.readyState === WebSocket.OPEN) socket.close();
          if (stream) stream.getTracks().forEach((track) => track.stop());
          if (context) context.close();
          socket = null; stream = null; context = null;
          $("start").disabled = false; $("stop").disabled = true; show(0);
        }

        $("form").onsubmit = (event) => { event.preventDefault(); start().catch((error) => { $("status").textContent = String(error); stop(); }); };
        $("stop").onclick = stop;
        </script>
        </body>
        </html>
        """#
}
