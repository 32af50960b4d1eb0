#!/usr/bin/env python3
"""An OpenTelemetry collector for the tests: takes OTLP/HTTP exports of traces, logs and
metrics, decodes them with the opentelemetry-proto package (PyPI; OpenTelemetry's own
generated classes, independent of the exporter Latchkey links) and keeps what they carry as
JSON lines. Run it with the python that `scripts/otlp-receiver.sh setup` prints.

    otlp-receiver.py [--host H] [--port N] [--dir DIR]

  --host H   address to listen on (default 127.0.0.1; ::1 for IPv6)
  --port N   port (default 0: a free one)
  --dir DIR  where the JSON lines go, one object a line, appended as exports arrive:
               spans.jsonl     each span: {"trace_id", "span_id", "parent_span_id" (hex, ""
                               for a root), "name", "kind" ("SPAN_KIND_SERVER"), "start_ns",
                               "end_ns", "status_code" ("STATUS_CODE_ERROR"), "status_message",
                               "attributes", "events", "links", "resource", "scope",
                               "trace_state"}
               logs.jsonl      each log record: {"trace_id", "span_id" (hex or ""),
                               "severity_text", "severity_number", "body", "attributes",
                               "resource", "scope", ...}
               metrics.jsonl   each data point of each metric: {"name", "type" ("sum",
                               "gauge", "histogram", "exponential_histogram", "summary"),
                               "unit", "attributes", "value" (sum and gauge) or "count",
                               "sum", "bucket_counts", "explicit_bounds" (histograms),
                               "exemplars": [{"trace_id", "span_id", "value"}], "resource",
                               "scope", ...}
               requests.jsonl  each request, written before its body is decoded (so a
                               request whose spans are in is in too): {"method", "path",
                               "headers" (names lowercased)}
               rejected.jsonl  each request not taken: {"path", "status", "reason"}

It takes POST /v1/traces, /v1/logs and /v1/metrics with Content-Type application/x-protobuf
or application/json (OTLP/JSON: hex ids, as the specification has them), optionally
Content-Encoding gzip, and answers 200 with the empty Export*ServiceResponse in the request's
encoding. A body that does not decode is answered 400, an unknown path 404, another content
type or encoding 415. Attribute values are kept as JSON: strings, booleans, numbers, arrays,
objects (key-value lists), bytes as hex; a non-finite double as "NaN", "Infinity" or
"-Infinity". Prints one line, "READY <port>", on stdout once listening.
"""
import argparse
import base64
import gzip
import json
import math
import os
import threading
import traceback
from http.server import BaseHTTPRequestHandler

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest, ExportMetricsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse
from opentelemetry.proto.metrics.v1 import metrics_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from receiver_server import serve

parser = argparse.ArgumentParser()
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--dir", default=".")
arguments = parser.parse_args()
os.makedirs(arguments.dir, exist_ok=True)
lock = threading.Lock()


def keep(name, records):
    """Appends records to DIR/name, a line each. Under the lock, so that lines of exports
    arriving together never interleave, and flushed line by line, so that a reader polling
    the file sees whole lines (a reader still skips a last line without its newline)."""
    with lock, open(os.path.join(arguments.dir, name), "a") as handle:
        for record in records:
            handle.write(json.dumps(finite(record)) + "\n")
            handle.flush()


def finite(node):
    """The record with non-finite doubles as strings: json.dumps would write NaN, which no
    JSON parser takes."""
    if isinstance(node, float) and not math.isfinite(node):
        return "NaN" if math.isnan(node) else ("Infinity" if node > 0 else "-Infinity")
    if isinstance(node, dict):
        return {key: finite(value) for key, value in node.items()}
    if isinstance(node, list):
        return [finite(value) for value in node]
    return node


def enum_name(enum, number):
    # proto3 enums are open: a number from a newer schema has no name here.
    try:
        return enum.Name(number)
    except ValueError:
        return str(number)


def value(any_value):
    """An AnyValue as plain JSON."""
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    if kind == "kvlist_value":
        return attributes(any_value.kvlist_value.values)
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def attributes(key_values):
    return {pair.key: value(pair.value) for pair in key_values}


def span_lines(request):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": enum_name(trace_pb2.Span.SpanKind, span.kind),
                    "start_ns": span.start_time_unix_nano,
                    "end_ns": span.end_time_unix_nano,
                    "status_code": enum_name(trace_pb2.Status.StatusCode, span.status.code),
                    "status_message": span.status.message,
                    "attributes": attributes(span.attributes),
                    "events": [
                        {"name": event.name, "time_ns": event.time_unix_nano, "attributes": attributes(event.attributes)}
                        for event in span.events
                    ],
                    "links": [
                        {"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex(), "trace_state": link.trace_state, "attributes": attributes(link.attributes)}
                        for link in span.links
                    ],
                    "resource": resource,
                    "scope": scope_spans.scope.name,
                    "trace_state": span.trace_state,
                }


def log_lines(request):
    for resource_logs in request.resource_logs:
        resource = attributes(resource_logs.resource.attributes)
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                yield {
                    "trace_id": record.trace_id.hex(),
                    "span_id": record.span_id.hex(),
                    "time_ns": record.time_unix_nano,
                    "observed_time_ns": record.observed_time_unix_nano,
                    "severity_text": record.severity_text,
                    "severity_number": record.severity_number,
                    "event_name": record.event_name,
                    "body": value(record.body),
                    "attributes": attributes(record.attributes),
                    "resource": resource,
                    "scope": scope_logs.scope.name,
                }


def number(point):
    """A NumberDataPoint's or an Exemplar's value, whichever of as_int and as_double it has."""
    kind = point.WhichOneof("value")
    return getattr(point, kind) if kind else None


def exemplars(point):
    return [
        {"trace_id": exemplar.trace_id.hex(), "span_id": exemplar.span_id.hex(), "value": number(exemplar), "time_ns": exemplar.time_unix_nano,
         "attributes": attributes(exemplar.filtered_attributes)}
        for exemplar in point.exemplars
    ]


def optional(point, field):
    # sum, min and max of the histograms are proto3 optional: unset is not 0.
    return getattr(point, field) if point.HasField(field) else None


def point_fields(kind, data, point):
    """What a data point of a metric of this kind says, beyond its attributes."""
    fields = {"start_ns": point.start_time_unix_nano, "time_ns": point.time_unix_nano}
    if kind in ("sum", "histogram", "exponential_histogram"):
        fields["temporality"] = enum_name(metrics_pb2.AggregationTemporality, data.aggregation_temporality)
    if kind == "sum":
        fields["monotonic"] = data.is_monotonic
    if kind in ("sum", "gauge"):
        fields["value"] = number(point)
        fields["exemplars"] = exemplars(point)
    elif kind == "histogram":
        fields.update(count=point.count, sum=optional(point, "sum"), min=optional(point, "min"), max=optional(point, "max"),
                      bucket_counts=list(point.bucket_counts), explicit_bounds=list(point.explicit_bounds), exemplars=exemplars(point))
    elif kind == "exponential_histogram":
        fields.update(count=point.count, sum=optional(point, "sum"), min=optional(point, "min"), max=optional(point, "max"),
                      scale=point.scale, zero_count=point.zero_count, zero_threshold=point.zero_threshold,
                      positive={"offset": point.positive.offset, "bucket_counts": list(point.positive.bucket_counts)},
                      negative={"offset": point.negative.offset, "bucket_counts": list(point.negative.bucket_counts)},
                      exemplars=exemplars(point))
    elif kind == "summary":
        fields.update(count=point.count, sum=point.sum, quantile_values=[{"quantile": q.quantile, "value": q.value} for q in point.quantile_values],
                      exemplars=[])
    return fields


def metric_lines(request):
    for resource_metrics in request.resource_metrics:
        resource = attributes(resource_metrics.resource.attributes)
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                kind = metric.WhichOneof("data")
                if kind is None:
                    continue
                data = getattr(metric, kind)
                for point in data.data_points:
                    yield {
                        "name": metric.name,
                        "type": kind,
                        "unit": metric.unit,
                        "description": metric.description,
                        "attributes": attributes(point.attributes),
                        **point_fields(kind, data, point),
                        "resource": resource,
                        "scope": scope_metrics.scope.name,
                    }


SIGNALS = {
    "/v1/traces": (ExportTraceServiceRequest, ExportTraceServiceResponse, "spans.jsonl", span_lines),
    "/v1/logs": (ExportLogsServiceRequest, ExportLogsServiceResponse, "logs.jsonl", log_lines),
    "/v1/metrics": (ExportMetricsServiceRequest, ExportMetricsServiceResponse, "metrics.jsonl", metric_lines),
}
ID_KEYS = {"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"}


def hex_ids_to_base64(node):
    """OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping of bytes
    fields is base64: turned into what json_format parses. Attribute keys are values of
    "key", never JSON keys, so no attribute is touched."""
    if isinstance(node, dict):
        return {
            key: base64.b64encode(bytes.fromhex(item)).decode() if key in ID_KEYS and isinstance(item, str) else hex_ids_to_base64(item)
            for key, item in node.items()
        }
    if isinstance(node, list):
        return [hex_ids_to_base64(item) for item in node]
    return node


class Rejected(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status


class Handler(BaseHTTPRequestHandler):
    # Keep-alive, as a real collector answers: the exporter's connection pool is exercised
    # as in production. Every answer below says its Content-Length for that.
    protocol_version = "HTTP/1.1"

    def answer(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        # An exporter streaming its body sends it chunked, without a Content-Length.
        if "chunked" not in self.headers.get("Transfer-Encoding", "").lower():
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        chunks = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline()

    def decode(self, body, request_type):
        """The request message and its content type, or Rejected saying why not."""
        content_type = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if content_type not in ("application/x-protobuf", "application/json"):
            raise Rejected(415, f"Content-Type is {self.headers.get('Content-Type')!r}")
        encoding = self.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding not in ("gzip", "identity", ""):
            raise Rejected(415, f"Content-Encoding is {encoding!r}")
        message = request_type()
        try:
            if encoding == "gzip":
                body = gzip.decompress(body)
            if content_type == "application/json":
                json_format.ParseDict(hex_ids_to_base64(json.loads(body)), message, ignore_unknown_fields=True)
            else:
                message.ParseFromString(body)
        except Exception as error:  # whatever the decoders raise, the body is the client's 400
            raise Rejected(400, f"{type(error).__name__}: {error}")
        return message, content_type

    def do_POST(self):
        body = self.read_body()
        path = self.path.split("?")[0]
        keep("requests.jsonl", [{"method": "POST", "path": path, "headers": {name.lower(): value for name, value in self.headers.items()}}])
        try:
            if path not in SIGNALS:
                raise Rejected(404, f"no such path: {path}")
            request_type, response_type, file_name, lines = SIGNALS[path]
            message, content_type = self.decode(body, request_type)
            keep(file_name, list(lines(message)))
        except Rejected as rejection:
            keep("rejected.jsonl", [{"path": path, "status": rejection.status, "reason": str(rejection)}])
            return self.answer(rejection.status, "text/plain", str(rejection).encode())
        except Exception:  # a bug here rather than in the export: said, not swallowed
            keep("rejected.jsonl", [{"path": path, "status": 500, "reason": traceback.format_exc()}])
            return self.answer(500, "text/plain", b"receiver error")
        # The answer is in the request's encoding, as OTLP/HTTP has it.
        if content_type == "application/json":
            self.answer(200, "application/json", json_format.MessageToJson(response_type()).encode())
        else:
            self.answer(200, "application/x-protobuf", response_type().SerializeToString())

    def log_message(self, format, *args):
        pass


serve(Handler, arguments.host, arguments.port)
