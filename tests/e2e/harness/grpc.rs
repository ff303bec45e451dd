//! A typed gRPC `fleet.v1.Browser` client of a test fleet, calling with a
//! tenant's key as metadata.

use fleet_proto::v1::browser_client::BrowserClient;
use tonic::metadata::MetadataValue;

use super::Fleet;

/// A gRPC Browser client with `key`.
pub async fn grpc(
    fleet: &Fleet,
    key: &str,
) -> BrowserClient<
    tonic::service::interceptor::InterceptedService<
        tonic::transport::Channel,
        impl tonic::service::Interceptor + use<>,
    >,
> {
    let channel = tonic::transport::Channel::from_shared(fleet.gateway.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let bearer: MetadataValue<_> = format!("Bearer {key}").parse().unwrap();
    BrowserClient::with_interceptor(channel, move |mut req: tonic::Request<()>| {
        req.metadata_mut().insert("authorization", bearer.clone());
        Ok(req)
    })
}
