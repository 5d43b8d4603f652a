import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import type { Grant } from '#grants';

/** One subnet of the operator's VPC, as the synthesis needs it without looking it up. */
export interface VpcSubnet {
  readonly subnetId: string;
  readonly availabilityZone: string;
  /** The route table the gateway endpoints (S3, DynamoDB) add their routes to. */
  readonly routeTableId: string;
}

/** The AWS service behind each grant of lambdas/grants.ts: the part of its name before the dot. */
export type GrantService = Grant extends `${infer Service}.${string}` ? Service : never;

/** A VPC endpoint of an AWS service, named for construct ids and messages (`Sqs`). */
export type VpcEndpointService =
  | { readonly name: string; readonly kind: 'gateway'; readonly service: ec2.GatewayVpcEndpointAwsService }
  | { readonly name: string; readonly kind: 'interface'; readonly service: ec2.InterfaceVpcEndpointAwsService };

/** The table's service: every function reads or writes it. */
export const DYNAMODB_ENDPOINT: VpcEndpointService = {
  name: 'DynamoDb',
  kind: 'gateway',
  service: ec2.GatewayVpcEndpointAwsService.DYNAMODB,
};

/**
 * How a function in the VPC reaches the service of each grant without a route to the internet.
 * A Record, so that a grant of a new service does not type-check until it says which endpoint it
 * needs. S3 and DynamoDB have gateway endpoints (free); the others interface endpoints, billed per
 * hour and Availability Zone. The functions' logs, metrics (embedded in the logs) and traces are
 * sent by Lambda, not from the VPC, so CloudWatch and X-Ray need none.
 */
export const VPC_ENDPOINT_OF_GRANT_SERVICE: Readonly<Record<GrantService, VpcEndpointService>> = {
  media: { name: 'S3', kind: 'gateway', service: ec2.GatewayVpcEndpointAwsService.S3 },
  states: { name: 'StepFunctions', kind: 'interface', service: ec2.InterfaceVpcEndpointAwsService.STEP_FUNCTIONS },
  transcribe: { name: 'Transcribe', kind: 'interface', service: ec2.InterfaceVpcEndpointAwsService.TRANSCRIBE },
  bedrock: {
    name: 'BedrockRuntime',
    kind: 'interface',
    service: ec2.InterfaceVpcEndpointAwsService.BEDROCK_RUNTIME,
  },
  // Bedrock's control plane (GetFoundationModel), which the runtime endpoint does not serve.
  'bedrock-control': { name: 'Bedrock', kind: 'interface', service: ec2.InterfaceVpcEndpointAwsService.BEDROCK },
  queue: { name: 'Sqs', kind: 'interface', service: ec2.InterfaceVpcEndpointAwsService.SQS },
  kms: { name: 'Kms', kind: 'interface', service: ec2.InterfaceVpcEndpointAwsService.KMS },
  secrets: { name: 'SecretsManager', kind: 'interface', service: ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER },
};

/** The service of a grant: `states.video-job:start` → `states`. */
export function grantServiceOf(grant: Grant): GrantService {
  return grant.slice(0, grant.indexOf('.')) as GrantService;
}

export interface FunctionNetworkProps {
  readonly vpcId: string;
  /** Where the functions and the interface endpoints run (one endpoint interface per Availability Zone). */
  readonly subnets: readonly VpcSubnet[];
  /** Every grant a function of the stack holds: the service of each gets its endpoint. */
  readonly grants: readonly Grant[];
}

/**
 * Where the stack's functions run in the governed profile: subnets of a VPC the operator names
 * (taken as given, with no lookup, so the synthesis stays offline), a security group of their own,
 * and the VPC endpoints of every service they call, so that no call needs a NAT gateway: a gateway
 * endpoint for DynamoDB (the table) and one for each gateway service a grant needs, an interface
 * endpoint with private DNS for each other one. The interface endpoints share a security group
 * that admits HTTPS from the functions only.
 */
export class FunctionNetwork extends Construct {
  public readonly vpc: ec2.IVpc;
  public readonly subnets: readonly ec2.ISubnet[];
  /** Of every function. */
  public readonly securityGroup: ec2.SecurityGroup;
  /** Of every interface endpoint. */
  public readonly endpointSecurityGroup: ec2.SecurityGroup;
  /** By VpcEndpointService name (`DynamoDb`, `S3`). */
  public readonly gatewayEndpoints: ReadonlyMap<string, ec2.GatewayVpcEndpoint>;
  /** By VpcEndpointService name (`Sqs`). */
  public readonly interfaceEndpoints: ReadonlyMap<string, ec2.InterfaceVpcEndpoint>;

  constructor(scope: Construct, id: string, props: FunctionNetworkProps) {
    super(scope, id);
    this.vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: props.vpcId,
      availabilityZones: [...new Set(props.subnets.map((subnet) => subnet.availabilityZone))],
    });
    this.subnets = props.subnets.map((subnet) =>
      ec2.Subnet.fromSubnetAttributes(this, subnet.subnetId, {
        subnetId: subnet.subnetId,
        availabilityZone: subnet.availabilityZone,
        routeTableId: subnet.routeTableId,
      }),
    );

    // Outbound is open: what a function reaches is decided by the subnets' routes (the endpoints,
    // and the internet only where the operator routes it), and webhook deliveries go to any HTTPS
    // address.
    this.securityGroup = new ec2.SecurityGroup(this, 'FunctionsSecurityGroup', {
      vpc: this.vpc,
      description: 'The functions of the developer API',
      allowAllOutbound: true,
    });
    this.endpointSecurityGroup = new ec2.SecurityGroup(this, 'EndpointsSecurityGroup', {
      vpc: this.vpc,
      description: 'The interface VPC endpoints of the developer API functions: HTTPS from the functions only',
      allowAllOutbound: false,
    });
    this.endpointSecurityGroup.addIngressRule(this.securityGroup, ec2.Port.tcp(443), 'HTTPS from the functions');

    const endpoints = new Map<string, VpcEndpointService>(
      [DYNAMODB_ENDPOINT, ...props.grants.map((grant) => VPC_ENDPOINT_OF_GRANT_SERVICE[grantServiceOf(grant)])].map(
        (endpoint) => [endpoint.name, endpoint],
      ),
    );
    const gatewayEndpoints = new Map<string, ec2.GatewayVpcEndpoint>();
    const interfaceEndpoints = new Map<string, ec2.InterfaceVpcEndpoint>();
    for (const endpoint of endpoints.values()) {
      if (endpoint.kind === 'gateway') {
        gatewayEndpoints.set(
          endpoint.name,
          new ec2.GatewayVpcEndpoint(this, `${endpoint.name}Endpoint`, {
            vpc: this.vpc,
            service: endpoint.service,
            subnets: [{ subnets: [...this.subnets] }],
          }),
        );
      } else {
        interfaceEndpoints.set(
          endpoint.name,
          new ec2.InterfaceVpcEndpoint(this, `${endpoint.name}Endpoint`, {
            vpc: this.vpc,
            service: endpoint.service,
            subnets: { subnets: [...this.subnets], onePerAz: true },
            securityGroups: [this.endpointSecurityGroup],
            privateDnsEnabled: true,
            // The security group above admits the functions; `open` would admit the whole VPC.
            open: false,
          }),
        );
      }
    }
    this.gatewayEndpoints = gatewayEndpoints;
    this.interfaceEndpoints = interfaceEndpoints;
  }

  /** The VPC settings of a function that runs here. */
  get placement(): { vpc: ec2.IVpc; vpcSubnets: ec2.SubnetSelection; securityGroups: ec2.ISecurityGroup[] } {
    return { vpc: this.vpc, vpcSubnets: { subnets: [...this.subnets] }, securityGroups: [this.securityGroup] };
  }
}
