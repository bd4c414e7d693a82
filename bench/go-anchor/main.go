// The Go anchor of the benchmarks: the smallest provider a Go author could write on
// hashicorp/go-plugin and tfplugin6 with no framework, to measure ours against. One resource type,
// goanchor_thing, with a required string (name) and an optional one (parent); everything lives in
// Terraform's state. Each value is decoded and encoded with go-cty as a real provider would.
//
// With GOANCHOR_READ_URL set, every ReadResource makes one HTTPS GET to that URL (plus the
// resource's name) and waits for a 200, as a provider that reads each resource from its API does;
// GOANCHOR_CA_FILE names the PEM certificate to trust.
//
// With GOANCHOR_SCHEMA naming a file that holds a GetProviderSchema response (protobuf), the anchor
// serves that schema instead of its own and keeps every resource type of it in state the same way:
// given ours (bench/plan.js --our-schema), Terraform does for it all it does for our provider, and
// only the provider process differs. GOANCHOR_CALL_CPU_US adds CPU time to every call (grpcServer).
// Built by bench/go-anchor/build.sh; a benchmark tool only.
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
	"strconv"
	"sync"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	tf "goanchor/tfplugin6"
)

const typeName = "goanchor_thing"

var thingType = cty.Object(map[string]cty.Type{"name": cty.String, "parent": cty.String})

// The schema served, and the value type of each resource type in it.
var (
	schema = &tf.GetProviderSchema_Response{
		Provider: &tf.Schema{Block: &tf.Schema_Block{}},
		ResourceSchemas: map[string]*tf.Schema{
			typeName: {Block: &tf.Schema_Block{Attributes: []*tf.Schema_Attribute{
				{Name: "name", Type: []byte(`"string"`), Required: true},
				{Name: "parent", Type: []byte(`"string"`), Optional: true},
			}}},
		},
		ServerCapabilities: &tf.ServerCapabilities{GetProviderSchemaOptional: true},
	}
	valueTypes = map[string]cty.Type{typeName: thingType}
)

// loadSchema replaces the anchor's own schema by the one in GOANCHOR_SCHEMA, if set.
func loadSchema() error {
	file := os.Getenv("GOANCHOR_SCHEMA")
	if file == "" {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	loaded := &tf.GetProviderSchema_Response{}
	if err := proto.Unmarshal(b, loaded); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	types := map[string]cty.Type{}
	for name, s := range loaded.ResourceSchemas {
		t, err := blockType(s.Block)
		if err != nil {
			return fmt.Errorf("%s: resource type %s: %w", file, name, err)
		}
		types[name] = t
	}
	schema, valueTypes = loaded, types
	return nil
}

// blockType is the value type a schema block describes.
func blockType(b *tf.Schema_Block) (cty.Type, error) {
	attrs := map[string]cty.Type{}
	for _, a := range b.Attributes {
		var t cty.Type
		var err error
		if a.NestedType != nil {
			t, err = objectType(a.NestedType)
		} else {
			t, err = ctyjson.UnmarshalType(a.Type)
		}
		if err != nil {
			return cty.NilType, fmt.Errorf("attribute %s: %w", a.Name, err)
		}
		attrs[a.Name] = t
	}
	for _, nb := range b.BlockTypes {
		t, err := blockType(nb.Block)
		if err != nil {
			return cty.NilType, fmt.Errorf("block %s: %w", nb.TypeName, err)
		}
		switch nb.Nesting {
		case tf.Schema_NestedBlock_SINGLE, tf.Schema_NestedBlock_GROUP:
		case tf.Schema_NestedBlock_LIST:
			t = cty.List(t)
		case tf.Schema_NestedBlock_SET:
			t = cty.Set(t)
		case tf.Schema_NestedBlock_MAP:
			t = cty.Map(t)
		default:
			return cty.NilType, fmt.Errorf("block %s: nesting %v", nb.TypeName, nb.Nesting)
		}
		attrs[nb.TypeName] = t
	}
	return cty.Object(attrs), nil
}

// objectType is the value type of a nested attribute.
func objectType(o *tf.Schema_Object) (cty.Type, error) {
	t, err := blockType(&tf.Schema_Block{Attributes: o.Attributes})
	if err != nil {
		return cty.NilType, err
	}
	switch o.Nesting {
	case tf.Schema_Object_SINGLE:
		return t, nil
	case tf.Schema_Object_LIST:
		return cty.List(t), nil
	case tf.Schema_Object_SET:
		return cty.Set(t), nil
	case tf.Schema_Object_MAP:
		return cty.Map(t), nil
	}
	return cty.NilType, fmt.Errorf("nesting %v", o.Nesting)
}

// valueType is the value type of resource type `name`.
func valueType(name string) (cty.Type, error) {
	if t, ok := valueTypes[name]; ok {
		return t, nil
	}
	return cty.NilType, fmt.Errorf("unknown resource type %q", name)
}

type provider struct {
	tf.UnimplementedProviderServer
	client  *http.Client
	readURL string
}

func errorDiag(summary string, err error) []*tf.Diagnostic {
	return []*tf.Diagnostic{{Severity: tf.Diagnostic_ERROR, Summary: summary, Detail: err.Error()}}
}

func decode(v *tf.DynamicValue, name string) (cty.Value, error) {
	ty, err := valueType(name)
	if err != nil {
		return cty.NilVal, err
	}
	if v == nil {
		return cty.NullVal(ty), nil
	}
	if len(v.Json) > 0 {
		return ctyjson.Unmarshal(v.Json, ty)
	}
	return ctymsgpack.Unmarshal(v.Msgpack, ty)
}

func encode(v cty.Value, name string) (*tf.DynamicValue, error) {
	ty, err := valueType(name)
	if err != nil {
		return nil, err
	}
	b, err := ctymsgpack.Marshal(v, ty)
	if err != nil {
		return nil, err
	}
	return &tf.DynamicValue{Msgpack: b}, nil
}

// roundTrip decodes a value and encodes it again: what a provider does with a value it passes on.
func roundTrip(v *tf.DynamicValue, name string) (*tf.DynamicValue, []*tf.Diagnostic) {
	val, err := decode(v, name)
	if err != nil {
		return nil, errorDiag("invalid value", err)
	}
	out, err := encode(val, name)
	if err != nil {
		return nil, errorDiag("cannot encode value", err)
	}
	return out, nil
}

func (p *provider) GetMetadata(context.Context, *tf.GetMetadata_Request) (*tf.GetMetadata_Response, error) {
	res := &tf.GetMetadata_Response{ServerCapabilities: schema.ServerCapabilities}
	for name := range schema.ResourceSchemas {
		res.Resources = append(res.Resources, &tf.GetMetadata_ResourceMetadata{TypeName: name})
	}
	for name := range schema.DataSourceSchemas {
		res.DataSources = append(res.DataSources, &tf.GetMetadata_DataSourceMetadata{TypeName: name})
	}
	for name := range schema.EphemeralResourceSchemas {
		res.EphemeralResources = append(res.EphemeralResources, &tf.GetMetadata_EphemeralMetadata{TypeName: name})
	}
	return res, nil
}

func (p *provider) GetProviderSchema(context.Context, *tf.GetProviderSchema_Request) (*tf.GetProviderSchema_Response, error) {
	return schema, nil
}

func (p *provider) ValidateProviderConfig(context.Context, *tf.ValidateProviderConfig_Request) (*tf.ValidateProviderConfig_Response, error) {
	return &tf.ValidateProviderConfig_Response{}, nil
}

func (p *provider) ValidateResourceConfig(_ context.Context, req *tf.ValidateResourceConfig_Request) (*tf.ValidateResourceConfig_Response, error) {
	if _, err := decode(req.Config, req.TypeName); err != nil {
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
	ty, err := valueType(req.TypeName)
	if err != nil {
		return &tf.UpgradeResourceState_Response{Diagnostics: errorDiag("invalid stored state", err)}, nil
	}
	val, err := ctyjson.Unmarshal(req.RawState.Json, ty)
	if err != nil {
		return &tf.UpgradeResourceState_Response{Diagnostics: errorDiag("invalid stored state", err)}, nil
	}
	out, err := encode(val, req.TypeName)
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
	val, err := decode(req.CurrentState, req.TypeName)
	if err != nil {
		return &tf.ReadResource_Response{Diagnostics: errorDiag("invalid state", err)}, nil
	}
	if p.readURL != "" && !val.IsNull() && req.TypeName == typeName {
		if err := p.fetch(ctx, val.GetAttr("name").AsString()); err != nil {
			return &tf.ReadResource_Response{Diagnostics: errorDiag("cannot read resource", err)}, nil
		}
	}
	out, err := encode(val, req.TypeName)
	if err != nil {
		return &tf.ReadResource_Response{Diagnostics: errorDiag("cannot encode state", err)}, nil
	}
	return &tf.ReadResource_Response{NewState: out, Private: req.Private}, nil
}

func (p *provider) PlanResourceChange(_ context.Context, req *tf.PlanResourceChange_Request) (*tf.PlanResourceChange_Response, error) {
	planned, diags := roundTrip(req.ProposedNewState, req.TypeName)
	return &tf.PlanResourceChange_Response{PlannedState: planned, Diagnostics: diags, PlannedPrivate: req.PriorPrivate}, nil
}

func (p *provider) ApplyResourceChange(_ context.Context, req *tf.ApplyResourceChange_Request) (*tf.ApplyResourceChange_Response, error) {
	state, diags := roundTrip(req.PlannedState, req.TypeName)
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

// grpcServer is go-plugin's default server, with GOANCHOR_CALL_CPU_US (microseconds) of CPU spent
// before each call, one call at a time: the anchor made to cost what a slower, single-threaded
// provider costs per call (bench/gap.js).
func grpcServer(opts []grpc.ServerOption) *grpc.Server {
	us, err := strconv.Atoi(os.Getenv("GOANCHOR_CALL_CPU_US"))
	if err != nil || us <= 0 {
		return plugin.DefaultGRPCServer(opts)
	}
	var one sync.Mutex
	spend := func(ctx context.Context, req interface{}, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (interface{}, error) {
		one.Lock()
		for end := time.Now().Add(time.Duration(us) * time.Microsecond); time.Now().Before(end); {
		}
		one.Unlock()
		return handler(ctx, req)
	}
	return plugin.DefaultGRPCServer(append(opts, grpc.UnaryInterceptor(spend)))
}

func main() {
	if err := loadSchema(); err != nil {
		fmt.Fprintf(os.Stderr, "goanchor: GOANCHOR_SCHEMA: %v\n", err)
		os.Exit(1)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  6,
			MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
			MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
		},
		Plugins:    plugin.PluginSet{"provider": grpcPlugin{}},
		GRPCServer: grpcServer,
		// go-plugin's default logs at trace level on stderr; a provider logs warnings and errors.
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr, JSONFormat: true}),
	})
}
