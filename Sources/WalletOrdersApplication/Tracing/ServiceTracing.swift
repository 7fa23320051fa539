import Foundation
import Logging
import OTel
import ServiceLifecycle
import Synchronization
import Tracing

/// Traces, when `tracingEndpoint` names an OpenTelemetry collector: a span for each request (the HTTP layer's tracing
/// middleware starts them), sent in batches over OTLP/HTTP by swift-otel. Without the setting nothing here runs: no
/// tracer, no middleware, no cost.
public enum ServiceTracing {
    /// Whether this process made its tracer: the tracing system takes one, once.
    private static let started = Mutex(false)

    /// The URL spans are posted to: `endpoint` as given when it ends in `/v1/traces`, otherwise that path under it,
    /// as `OTEL_EXPORTER_OTLP_ENDPOINT` is read.
    public static func tracesURL(_ endpoint: URL) -> String {
        var url = endpoint.absoluteString
        if url.hasSuffix("/v1/traces") { return url }
        if !url.hasSuffix("/") { url += "/" }
        return url + "v1/traces"
    }

    /// Makes the OTLP/HTTP exporter for `endpoint` and this process's tracer; answers the service that sends the spans
    /// in batches, to run beside the server (stopping, it sends what is left). The standard `OTEL_*` environment
    /// variables (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, `OTEL_EXPORTER_OTLP_HEADERS`…) refine it.
    public static func start(endpoint: URL, logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "wallet-orders"
        configuration.diagnosticLogger = .custom(logger)
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.otlpExporter.endpoint = tracesURL(endpoint)
        let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
        try started.withLock { started in
            guard !started else { throw ConfigurationError("tracing is already on in this process") }
            started = true
        }
        InstrumentationSystem.bootstrap(tracer)
        return service
    }
}
