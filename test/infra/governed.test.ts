import { ROUTES } from '#routes';
import {
  actionsOf,
  asText,
  AUTO_DELETE_PROVIDER,
  EDGE_FIREWALL_EXCEPTIONS,
  EXCEPTIONS_EVERYWHERE,
  policyStatements,
  resourcesOf,
  synthesizedWithControls,
} from './fixtures';

const SUBNETS = [
  { subnetId: 'subnet-0aaaaaaaaaaaaaaa1', availabilityZone: 'us-east-1a', routeTableId: 'rtb-0aaaaaaaaaaaaaaa1' },
  { subnetId: 'subnet-0bbbbbbbbbbbbbbb2', availabilityZone: 'us-east-1b', routeTableId: 'rtb-0bbbbbbbbbbbbbbb2' },
];
const VPC_ID = 'vpc-0123456789abcdef0';

// The governed profile as the CLI gives it (`-c governed=true -c vpcId=… -c vpcSubnets='[…]'`),
// with the options that add resources (a throwaway stage, whose buckets CDK's own function
// empties, and the edge firewall), built and checked as bin/app.ts does: one synthesis for every
// assertion of the file.
const { stack, template, logicalIdOf, controls, nag, cloudFormationValidation } = synthesizedWithControls({
  governed: 'true',
  vpcId: VPC_ID,
  vpcSubnets: JSON.stringify(SUBNETS),
  stage: 'dev',
  production: 'false',
  edgeFirewall: 'true',
});
const governance = stack.governance!;
const allFunctions = template.findResources('AWS::Lambda::Function');
const functions = Object.fromEntries(
  Object.entries(allFunctions).filter(([logicalId]) => !logicalId.startsWith(AUTO_DELETE_PROVIDER.replace('::', ''))),
);
const logGroups = template.findResources('AWS::Logs::LogGroup');
const endpoints = template.findResources('AWS::EC2::VPCEndpoint');

/** `com.amazonaws.<region>.sqs` → `sqs`. */
const serviceOf = (endpoint: Record<string, unknown>) =>
  asText((endpoint.Properties as { ServiceName: unknown }).ServiceName)
    .split('.')
    .at(-1);
const arnOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });
const groupIdOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'GroupId'] });

describe('the governed profile', () => {
  test('fails no Control Tower control', () => {
    expect(controls.failing).toEqual({});
  });

  test('acknowledges exactly the stated exceptions', () => {
    expect(Object.keys(allFunctions).length - Object.keys(functions).length).toBe(1);
    expect(controls.acknowledged).toEqual({
      ...EXCEPTIONS_EVERYWHERE,
      'CT.LAMBDA.PR.3': { [`VideoApiStack/${AUTO_DELETE_PROVIDER}`]: 1 },
      ...EDGE_FIREWALL_EXCEPTIONS,
    });
  });

  test('cdk-nag finds nothing unsuppressed', () => {
    expect(nag).toEqual({ errors: [], warnings: [] });
  });

  test("the template passes CDK's built-in CloudFormation validation without a finding", () => {
    expect(cloudFormationValidation).toEqual([]);
  });
});

describe('functions in the VPC', () => {
  test('every function runs in the configured subnets with the functions security group', () => {
    expect(Object.keys(functions).length).toBeGreaterThan(ROUTES.length);
    for (const fn of Object.values(functions)) {
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: SUBNETS.map((subnet) => subnet.subnetId),
        SecurityGroupIds: [groupIdOf(logicalIdOf(governance.network.securityGroup))],
      });
    }
  });

  test("every function's role may manage its network interfaces, and no managed policy gives it that", () => {
    const roles = template.findResources('AWS::IAM::Role');
    for (const fn of Object.values(functions)) {
      const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect(roles[role]!.Properties.ManagedPolicyArns).toBeUndefined();
      const statements = policyStatements(template).filter((statement) =>
        statement.roles.some((ref) => JSON.stringify(ref) === JSON.stringify({ Ref: role })),
      );
      const networkInterfaces = statements.filter((statement) =>
        actionsOf(statement).includes('ec2:CreateNetworkInterface'),
      );
      expect(networkInterfaces).toHaveLength(1);
      expect(
        actionsOf(networkInterfaces[0]!)
          .filter((action) => action.startsWith('ec2:'))
          .sort(),
      ).toEqual([
        'ec2:AssignPrivateIpAddresses',
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSubnets',
        'ec2:UnassignPrivateIpAddresses',
      ]);
      expect(resourcesOf(networkInterfaces[0]!)).toEqual(['*']);
    }
  });
});

describe('VPC endpoints', () => {
  test('DynamoDB and S3 have gateway endpoints on the route tables of the configured subnets', () => {
    const gateways = Object.values(endpoints).filter((endpoint) => endpoint.Properties.VpcEndpointType === 'Gateway');
    expect(gateways.map(serviceOf).sort()).toEqual(['dynamodb', 's3']);
    for (const gateway of gateways) {
      expect(gateway.Properties).toMatchObject({
        VpcId: VPC_ID,
        RouteTableIds: SUBNETS.map((subnet) => subnet.routeTableId),
      });
    }
  });

  test('each other service the functions call has an interface endpoint with private DNS in every subnet, behind the endpoints security group', () => {
    const interfaces = Object.values(endpoints).filter(
      (endpoint) => endpoint.Properties.VpcEndpointType === 'Interface',
    );
    expect(interfaces.map(serviceOf).sort()).toEqual([
      'bedrock',
      'bedrock-runtime',
      'kms',
      'secretsmanager',
      'sqs',
      'states',
      'transcribe',
    ]);
    for (const endpoint of interfaces) {
      expect(endpoint.Properties).toMatchObject({
        VpcId: VPC_ID,
        PrivateDnsEnabled: true,
        SubnetIds: SUBNETS.map((subnet) => subnet.subnetId),
        SecurityGroupIds: [groupIdOf(logicalIdOf(governance.network.endpointSecurityGroup))],
      });
    }
  });

  test('the endpoints admit HTTPS from the functions only, and the stack adds no NAT gateway, internet gateway or route', () => {
    const endpointGroup = logicalIdOf(governance.network.endpointSecurityGroup);
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'));
    expect(ingress.map((rule) => rule.Properties)).toEqual([
      {
        Description: 'HTTPS from the functions',
        GroupId: groupIdOf(endpointGroup),
        SourceSecurityGroupId: groupIdOf(logicalIdOf(governance.network.securityGroup)),
        IpProtocol: 'tcp',
        FromPort: 443,
        ToPort: 443,
      },
    ]);
    const groups = template.findResources('AWS::EC2::SecurityGroup');
    expect(Object.values(groups).flatMap((group) => group.Properties.SecurityGroupIngress ?? [])).toEqual([]);
    for (const type of ['AWS::EC2::NatGateway', 'AWS::EC2::InternetGateway', 'AWS::EC2::Route', 'AWS::EC2::VPC']) {
      expect(template.findResources(type)).toEqual({});
    }
  });
});

describe('log groups', () => {
  test('every log group is encrypted with the logs key and kept a year', () => {
    expect(Object.keys(logGroups).length).toBeGreaterThan(Object.keys(functions).length);
    for (const logGroup of Object.values(logGroups)) {
      expect(logGroup.Properties).toMatchObject({
        KmsKeyId: arnOf(logicalIdOf(governance.logsKey)),
        RetentionInDays: 365,
      });
    }
  });

  test('the logs key rotates, goes with a throwaway stage, lets CloudWatch Logs use it for the log groups of this account and region only, and refuses grants', () => {
    const key = template.findResources('AWS::KMS::Key')[logicalIdOf(governance.logsKey)]!;
    expect(key).toMatchObject({ DeletionPolicy: 'Delete', Properties: { EnableKeyRotation: true } });
    const statements = key.Properties.KeyPolicy.Statement as {
      Sid?: string;
      Principal: unknown;
      Condition?: unknown;
    }[];
    const logsService = statements.find(
      (statement) => statement.Sid === 'CloudWatchLogsEncryptsThisAccountsLogGroups',
    )!;
    expect(asText((logsService.Principal as { Service: unknown }).Service)).toBe('logs.<AWS::Region>.amazonaws.com');
    expect(
      asText(
        (logsService.Condition as { ArnLike: Record<string, unknown> }).ArnLike['kms:EncryptionContext:aws:logs:arn'],
      ),
    ).toBe('arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:*');
    expect(statements.map((statement) => statement.Sid)).toContain('GrantsOnlyForAwsResources');
  });
});
