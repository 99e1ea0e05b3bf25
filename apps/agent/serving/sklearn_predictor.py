"""HCN's built-in model server for `framework: "sklearn"` models (CNET's mlmodel): loads a joblib-saved
scikit-learn estimator and serves it over HTTP with the standard library.

  GET  /healthz            200 {"status": "ready", ...} once the model is loaded (the readiness path)
  GET  /v1/models          the loaded model: name, class, features
  POST /v1/predict         {"instances": [[f1, f2, ...], ...]} -> {"predictions": [...]}
                           (also POST /v1/models/<name>:predict, KServe v1 style)

Arguments: --model PATH (read-only is enough) --port N [--host 127.0.0.1] [--name NAME].
Bad input gets a 400 with {"error": {"code", "message"}}; nothing is logged but one line per start.
"""
import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 8 * 1024 * 1024
MAX_INSTANCES = 10000


def load(path):
    import joblib  # shipped with scikit-learn

    return joblib.load(path)


def as_json(value):
    """Numpy values and arrays as plain JSON values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    return value


def handler_for(model, name):
    features = getattr(model, "n_features_in_", None)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def refuse(self, status, code, message):
            self.answer(status, {"error": {"code": code, "message": message}})

        def do_GET(self):
            if self.path == "/healthz":
                return self.answer(200, {"status": "ready", "model": name})
            if self.path == "/v1/models":
                return self.answer(200, {"name": name, "class": type(model).__name__, "features": features})
            self.refuse(404, "MODEL.ROUTE_NOT_FOUND", f"no route GET {self.path}")

        def do_POST(self):
            if self.path not in ("/v1/predict", f"/v1/models/{name}:predict"):
                return self.refuse(404, "MODEL.ROUTE_NOT_FOUND", f"no route POST {self.path}")
            length = int(self.headers.get("content-length") or 0)
            if length <= 0 or length > MAX_BODY:
                return self.refuse(400, "MODEL.BODY", f"a JSON body of 1 to {MAX_BODY} bytes is needed")
            try:
                body = json.loads(self.rfile.read(length))
                instances = body["instances"]
                if not isinstance(instances, list) or not 0 < len(instances) <= MAX_INSTANCES:
                    raise ValueError(f"instances: a list of 1 to {MAX_INSTANCES} rows")
                if features is not None and any(not isinstance(r, list) or len(r) != features for r in instances):
                    raise ValueError(f"each instance is a list of {features} numbers")
            except (ValueError, KeyError, TypeError) as error:
                return self.refuse(400, "MODEL.INPUT", str(error))
            try:
                predictions = model.predict(instances)
            except Exception as error:  # the estimator refused the values
                return self.refuse(400, "MODEL.PREDICT", str(error))
            self.answer(200, {"predictions": as_json(predictions), "model": name})

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--name", default="model")
    args = parser.parse_args()
    try:
        model = load(args.model)
    except Exception as error:
        print(f"sklearn-predictor: cannot load {args.model}: {error}", file=sys.stderr)
        return 2
    server = ThreadingHTTPServer((args.host, args.port), handler_for(model, args.name))
    print(f"sklearn-predictor: {type(model).__name__} from {args.model} on {args.host}:{args.port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sys.exit(main())
