// The Go anchor of the benchmarks: the smallest provider a Go author could write on
// hashicorp/go-plugin and tfplugin6 with no framework, to measure ours against. One resource type,
// goanchor_thing, with a required string (name) and an optional one (parent); everything lives in
// Terraform's state. Each value is decoded and encoded with go-cty as a real provider would.
//
// With GOANCHOR_READ_URL set, every ReadResource makes one HTTPS GET to that URL (plus the
// resource's name) and waits for a 200, as a provider that reads each resource from its API does;
// GOANCHOR_CA_FILE names the PEM certificate to trust. Built by bench/go-anchor/build.sh; a
// benchmark tool only.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"

	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
	"google.golang.org/grpc"

	tf "goanchor/tfplugin6"
)

const typeName = "goanchor_thing"

var thingType = cty.Object(map[string]cty.Type{"name": cty.String, "parent": cty.String})

type provider struct {
	tf.UnimplementedProviderServer
	client  *http.Client
	readURL string
}

func errorDiag(summary string, err error) []*tf.Diagnostic {
	return []*tf.Diagnostic{{Severity: tf.Diagnostic_ERROR, Summary: summary, Detail: err.Error()}}
}

func decode(v *tf.DynamicValue) (cty.Value, error) {
	if v == nil {
		return cty.NullVal(thingType), nil
	}
	if len(v.Json) > 0 {
		return ctyjson.Unmarshal(v.Json, thingType)
	}
	return ctymsgpack.Unmarshal(v.Msgpack, thingType)
}

func encode(v cty.Value) (*tf.DynamicValue, error) {
	b, err := ctymsgpack.Marshal(v, thingType)
	if err != nil {
		return nil, err
	}
	return &tf.DynamicValue{Msgpack: b}, nil
}

// roundTrip decodes a value and encodes it again: what a provider does with a value it passes on.
func roundTrip(v *tf.DynamicValue) (*tf.DynamicValue, []*tf.Diagnostic) {
	val, err := decode(v)
	if err != nil {
		return nil, errorDiag("invalid value", err)
	}
	out, err := encode(val)
	if err != nil {
		return nil, errorDiag("cannot encode value", err)
	}
	return out, nil
}

func (p *provider) GetMetadata(context.Context, *tf.GetMetadata_Request) (*tf.GetMetadata_Response, error) {
	return &tf.GetMetadata_Response{
		ServerCapabilities: &tf.ServerCapabilities{GetProviderSchemaOptional: true},
		Resources:          []*tf.GetMetadata_ResourceMetadata{{TypeName: typeName}},
	}, nil
}

func (p *provider) GetProviderSchema(context.Context, *tf.GetProviderSchema_Request) (*tf.GetProviderSchema_Response, error) {
	str := []byte(`"string"`)
	return &tf.GetProviderSchema_Response{
		Provider: &tf.Schema{Block: &tf.Schema_Block{}},
		ResourceSchemas: map[string]*tf.Schema{
			typeName: {Block: &tf.Schema_Block{Attributes: []*tf.Schema_Attribute{
				{Name: "name", Type: str, Required: true},
				{Name: "parent", Type: str, Optional: true},
			}}},
		},
		ServerCapabilities: &tf.ServerCapabilities{GetProviderSchemaOptional: true},
	}, nil
}

func (p *provider) ValidateProviderConfig(context.Context, *tf.ValidateProviderConfig_Request) (*tf.ValidateProviderConfig_Response, error) {
	return &tf.ValidateProviderConfig_Response{}, nil
}

func (p *provider) ValidateResourceConfig(_ context.Context, req *tf.ValidateResourceConfig_Request) (*tf.ValidateResourceConfig_Response, error) {
	if _, err := decode(req.Config); err != nil {
		return &tf.ValidateResourceConfig_Response{Diagnostics: errorDiag("invalid configuration", err)}, nil
	}
	return &tf.ValidateResourceConfig_Response{}, nil
}

func (p *provider) ConfigureProvider(context.Context, *tf.ConfigureProvider_Request) (*tf.ConfigureProvider_Response, error) {
	p.readURL = os.Getenv("GOANCHOR_READ_URL")
	if p.readURL == "" {
		return &tf.ConfigureProvider_Response{}, nil
	}
	pool := x509.NewCertPool()
	if file := os.Getenv("GOANCHOR_CA_FILE"); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return &tf.ConfigureProvider_Response{Diagnostics: errorDiag("cannot read GOANCHOR_CA_FILE", err)}, nil
		}
		pool.AppendCertsFromPEM(pem)
	}
	// Keep as many idle connections as Terraform runs operations at once (-parallelism=10), so
	// the anchor pays one TLS handshake per connection, not one per request.
	p.client = &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool},
		MaxIdleConnsPerHost: 10,
	}}
	return &tf.ConfigureProvider_Response{}, nil
}

func (p *provider) UpgradeResourceState(_ context.Context, req *tf.UpgradeResourceState_Request) (*tf.UpgradeResourceState_Response, error) {
	val, err := ctyjson.Unmarshal(req.RawState.Json, thingType)
	if err != nil {
		return &tf.UpgradeResourceState_Response{Diagnostics: errorDiag("invalid stored state", err)}, nil
	}
	out, err := encode(val)
	if err != nil {
		return &tf.UpgradeResourceState_Response{Diagnostics: errorDiag("cannot encode state", err)}, nil
	}
	return &tf.UpgradeResourceState_Response{UpgradedState: out}, nil
}

// fetch reads one resource from the API: one GET, answered 200.
func (p *provider) fetch(ctx context.Context, name string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.readURL+url.PathEscape(name), nil)
	if err != nil {
		return err
	}
	res, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", req.URL, res.StatusCode)
	}
	return nil
}

func (p *provider) ReadResource(ctx context.Context, req *tf.ReadResource_Request) (*tf.ReadResource_Response, error) {
	val, err := decode(req.CurrentState)
	if err != nil {
		return &tf.ReadResource_Response{Diagnostics: errorDiag("invalid state", err)}, nil
	}
	if p.readURL != "" && !val.IsNull() {
		if err := p.fetch(ctx, val.GetAttr("name").AsString()); err != nil {
			return &tf.ReadResource_Response{Diagnostics: errorDiag("cannot read resource", err)}, nil
		}
	}
	out, err := encode(val)
	if err != nil {
		return &tf.ReadResource_Response{Diagnostics: errorDiag("cannot encode state", err)}, nil
	}
	return &tf.ReadResource_Response{NewState: out, Private: req.Private}, nil
}

func (p *provider) PlanResourceChange(_ context.Context, req *tf.PlanResourceChange_Request) (*tf.PlanResourceChange_Response, error) {
	planned, diags := roundTrip(req.ProposedNewState)
	return &tf.PlanResourceChange_Response{PlannedState: planned, Diagnostics: diags, PlannedPrivate: req.PriorPrivate}, nil
}

func (p *provider) ApplyResourceChange(_ context.Context, req *tf.ApplyResourceChange_Request) (*tf.ApplyResourceChange_Response, error) {
	state, diags := roundTrip(req.PlannedState)
	return &tf.ApplyResourceChange_Response{NewState: state, Diagnostics: diags, Private: req.PlannedPrivate}, nil
}

func (p *provider) StopProvider(context.Context, *tf.StopProvider_Request) (*tf.StopProvider_Response, error) {
	return &tf.StopProvider_Response{}, nil
}

// grpcPlugin registers the provider on go-plugin's gRPC server.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	tf.RegisterProviderServer(s, &provider{})
	return nil
}

func (grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (interface{}, error) {
	return nil, fmt.Errorf("the anchor is a server only")
}

func main() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  6,
			MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
			MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
		},
		Plugins:    plugin.PluginSet{"provider": grpcPlugin{}},
		GRPCServer: plugin.DefaultGRPCServer,
		// go-plugin's default logs at trace level on stderr; a provider logs warnings and errors.
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr, JSONFormat: true}),
	})
}
